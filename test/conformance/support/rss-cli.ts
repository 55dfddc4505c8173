// The CLI in a child process that says, as the last line on stderr, the peak resident memory it took
// (in KiB): what a test of memory bounds reads.
import { main } from "../../../conformance/cli.js";

const code = await main(process.argv.slice(2));
process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\n`);
process.exitCode = code;
