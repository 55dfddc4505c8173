// `npm run build:all`: every build step, in order, from the contracts to dist/ and the docs site.
// With --changed (what `npm start` runs), a step whose inputs and outputs match its stamp is skipped
// (scripts/lib/build-steps.ts). Each step is the npm script of the same name, run as it is alone.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { STEPS } from "./lib/build-plan.js";
import { type BuildStep, runSteps } from "./lib/build-steps.js";
import { fromRoot, ROOT } from "./lib/paths.js";
import { QUIET_ENV } from "./lib/run-tool.js";

/** Run one step's npm script, its output passed through. */
function runScript(step: BuildStep): boolean {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["run", "-s", step.script], { cwd: ROOT, env: QUIET_ENV, stdio: "inherit" });
  return result.status === 0;
}

const { values } = parseArgs({ options: { changed: { type: "boolean", default: false } }, strict: true });
const outcomes = runSteps(STEPS, {
  root: ROOT,
  stampDir: fromRoot("build/stamps"),
  skipUnchanged: values.changed,
  run: runScript,
  log: (line) => console.log(line),
});
const failed = [...outcomes].find(([, outcome]) => outcome === "failed");
if (failed) {
  console.error(`build:all: ${STEPS.find((s) => s.name === failed[0])?.script} failed`);
  process.exitCode = 1;
}
