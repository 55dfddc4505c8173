#!/usr/bin/env node
// idv-conformance VERB: check recorded traffic (check) and webhook deliveries (webhooks) against the
// contract; proxy, probe and receiver are loaded when named. Every verb reads its command line with
// the package's one parser (run/command.ts). Exit 0 when everything conforms, 1 when something does
// not, 2 when the input or the command line cannot be used.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";
import { inSingleExecutable } from "../src/single-executable.js";
import { InputError } from "./traffic/input-error.js";
import { shownText } from "./findings/shown.js";
import { type CliIo, PROGRAM, shownWord } from "./run/command.js";
import { enableCompileCache } from "./run/compile-cache.js";
import { runChecks } from "./run/check-cli.js";

export type { CliIo } from "./run/command.js";
export { CHECK_FLAGS, CHECK_USAGE } from "./run/check-cli.js";

/** The help of `idv-conformance` itself: its verbs. */
export const USAGE = `Usage: idv-conformance COMMAND [options]   (idv-conformance COMMAND --help: its options)

  check FILE…       check API exchanges (HAR 1.2, NDJSON, Kong or Nginx/Apache JSON logs) against the
                    OpenAPI contract
  webhooks FILE…    check received webhook deliveries (HAR or NDJSON) against the AsyncAPI contract
  proxy --upstream URL [-- CMD…]
                    forward to URL and check each exchange as it completes; with CMD, run CMD with
                    IDV_BASE_URL pointing at the proxy, and stop and report when it ends
  probe --base-url URL
                    send a deployment the contract's examples, broken requests, wrong credentials
                    and linked flows, and check every answer
  receiver URL      send a webhook receiver the deliveries of the contract and judge its answers
  coverage merge FILE…
                    merge the --coverage reports of several runs (CI shards) of one contract

Exit status: 0 everything conforms, 1 something does not, 2 unusable input.`;

/** The verbs, by name: a new one is one more entry. Each is given the whole command line, verb first. */
const VERBS = new Map<string, (argv: string[], io: CliIo) => Promise<number>>([
  ["check", runChecks],
  ["webhooks", runChecks],
  ["proxy", async (argv, io) => (await import("./proxy/proxy-cli.js")).runProxy(argv, io)],
  ["probe", async (argv, io) => (await import("./probe/probe-cli.js")).runProbe(argv, io)],
  [
    "receiver",
    async (argv, io) => (await import("./receiver-check/receiver-cli.js")).runReceiverCheck(argv, io),
  ],
  ["coverage", async (argv, io) => (await import("./coverage/coverage-cli.js")).runCoverage(argv, io)],
]);

/** The verb of a command line (its first word), or the exit status of a line that has none. */
function verbOf(argv: string[], io: CliIo): string | number {
  const first = argv[0];
  if (first !== undefined && VERBS.has(first)) return first;
  if (first === "--help" || first === "-h") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const problem =
    first === undefined
      ? "no command given"
      : first.startsWith("-")
        ? `the command comes first: idv-conformance COMMAND ${shownWord(first.split("=")[0] ?? "")}`
        : `unknown command ${shownWord(first)}`;
  io.stderr.write(`${PROGRAM}: ${problem}\n\n${USAGE}\n`);
  return 2;
}

/**
 * Run the CLI and give its exit status. Never throws and never prints a stack trace (it could quote
 * recorded data): unusable input is one line on stderr and status 2.
 */
export async function main(
  argv: string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const verb = verbOf(argv, io);
  if (typeof verb === "number") return verb;
  try {
    return await VERBS.get(verb)!(argv, io);
  } catch (error) {
    if (error instanceof InputError) {
      // It names a file from the command line: a newline in it must not start a line of its own.
      io.stderr.write(`idv-conformance: ${shownText(error.message)}\n`);
    } else {
      // IDV_CONFORMANCE_DEBUG=1 shows the error to a developer.
      const name = error instanceof Error ? error.name : typeof error;
      io.stderr.write(`idv-conformance: unexpected ${name}; run with IDV_CONFORMANCE_DEBUG=1 for details\n`);
      if (process.env.IDV_CONFORMANCE_DEBUG === "1") console.error(error);
    }
    return 2;
  }
}

/**
 * Whether this module is the program being run (not imported, e.g. by a test calling main). The
 * single executable idv-conformance is this module, whatever its argv says (not its worker threads).
 */
function isEntryPoint(): boolean {
  if (inSingleExecutable()) return isMainThread;
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // Before the checker's modules load (they are imported when a command needs them): a later start
  // reuses their compiled code.
  enableCompileCache();
  // A reader that stops early (`| head`) ends the run quietly; the verdict was not all written, so not 0.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 2);
  });
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
