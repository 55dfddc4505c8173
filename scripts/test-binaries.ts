// npm run test:binaries: the suite's own tests of the sandbox's and the conformance suite's command
// lines, run once through the linux-x64 single executables. It builds them into a temporary folder
// (npm run build:binaries -- --platform linux-x64), then runs FILES with IDV_TEST_BINARIES set to
// it: test/support/cli-command.ts then starts each executable alone in an empty folder, with no node
// on PATH, where the tests otherwise start the sources. FILES reach every command at least once.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromRoot } from "./lib/paths.js";
import { QUIET_ENV } from "./lib/run-tool.js";

/** The test files, and the commands each brings to the executables. */
export const FILES = [
  "test/cli/command-lines.test.ts", // every program and verb: --help, refused flags, --format, --out
  "test/sandbox/cli.test.ts", // idv-sandbox: serve, --json, --print-url, credentials, a port in use
  "test/sandbox/state.test.ts", // --state: a torn state file
  "test/sandbox/trigger.test.ts", // idv-sandbox trigger
  "test/conformance/cli.test.ts", // check: formats, --out, unusable input
  "test/conformance/streams.test.ts", // check -: standard input
  "test/conformance/webhooks.test.ts", // webhooks
  "test/conformance/proxy-cli.test.ts", // proxy -- CMD, SIGTERM
  "test/conformance/probe-cli.test.ts", // probe against a sandbox
  "test/conformance/receiver-python.test.ts", // receiver against the Python receiver
  "test/conformance/coverage.test.ts", // check --coverage, coverage merge, --min-coverage
];

const out = mkdtempSync(join(tmpdir(), "idv-test-binaries-"));
let status: number;
try {
  const run = (args: string[], env: NodeJS.ProcessEnv): number =>
    spawnSync(process.execPath, args, { cwd: fromRoot(), env, stdio: "inherit" }).status ?? 1;
  const tsx = fromRoot("node_modules/tsx/dist/cli.mjs");
  status = run(
    [tsx, fromRoot("scripts/build-binaries.ts"), "--platform", "linux-x64", "--out", out],
    QUIET_ENV,
  );
  if (status === 0)
    status = run([fromRoot("node_modules/vitest/vitest.mjs"), "run", ...FILES], {
      ...QUIET_ENV,
      IDV_TEST_BINARIES: out,
    });
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exitCode = status;
