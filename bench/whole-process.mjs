// node whole-process.mjs USAGE.json SCRIPT [ARGS…]: runs SCRIPT as this process's main module and, when the
// process exits, writes its CPU time (user + system) and peak resident memory to USAGE.json. Both tools
// compared on a file are measured alike: the whole process, Node's start included.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [usageFile, script, ...args] = process.argv.slice(2);
if (!usageFile || !script) {
  process.stderr.write("usage: node whole-process.mjs USAGE.json SCRIPT [ARGS…]\n");
  process.exit(2);
}
const main = resolve(script);
// The script sees the command line it would have seen run directly (its main-module check included).
process.argv = [process.argv[0], main, ...args];
process.on("exit", () => {
  const usage = process.resourceUsage();
  writeFileSync(
    usageFile,
    JSON.stringify({
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      maxRssMb: usage.maxRSS / 1024,
    }),
  );
});
await import(pathToFileURL(main).href);
