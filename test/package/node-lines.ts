// npm run test:node-lines — the runtime's tests (client, webhooks, conformance, package) on every
// supported Node.js line, each with its own binary from the npm registry.
//
// The binaries come from test/support/node-binary.ts: installed from the npm registry without any
// install script, into a cache outside the project's dependencies; a second run reuses them.
//
// Usage: npm run test:node-lines [-- 24.21.0 26.10.0]   (default: every line below)
import { execFileSync, spawnSync } from "node:child_process";
import { delimiter, dirname } from "node:path";
import { fromRoot } from "../../scripts/lib/paths.js";
import { nodeBinary } from "../support/node-binary.js";

/** The supported lines, at the versions tested. */
const LINES = ["22.23.3", "24.21.0", "26.10.0"];
const SUITES = ["test/client", "test/webhooks", "test/conformance", "test/package"];

const versions = process.argv.slice(2).length ? process.argv.slice(2) : LINES;
const results: string[] = [];
let failed = false;
for (const version of versions) {
  const binary = nodeBinary(version);
  const reported = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  console.log(`\n── Node ${reported}: ${SUITES.join(" ")}`);
  const started = Date.now();
  // That node first on PATH, so that what the tests spawn (npm, node) runs on the same line.
  const env = { ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ""}` };
  const run = spawnSync(binary, [fromRoot("node_modules/vitest/vitest.mjs"), "run", ...SUITES], {
    cwd: fromRoot(),
    env,
    stdio: "inherit",
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  results.push(`Node ${reported}: ${run.status === 0 ? "passed" : "FAILED"} in ${seconds} s`);
  if (run.status !== 0) failed = true;
}
console.log(`\n${results.join("\n")}`);
process.exit(failed ? 1 : 0);
