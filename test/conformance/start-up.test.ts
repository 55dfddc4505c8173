// What opening a checker costs at start: the modules it loads. Each case runs in a fresh process, since
// a module loaded by another test would be in this one's caches already.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";

/** Run an ES module body from source in a child process, and give what it printed as JSON. */
function inChild(body: string): unknown {
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", body], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/** A module body that prints, after each step, whether ajv's compiler has been loaded. */
const probe = (steps: string[]): string => `
import { createRequire } from "node:module";
const cache = createRequire(import.meta.url).cache;
const ajvLoaded = () => Object.keys(cache).some((file) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]dist[\\\\/]core\\.js$/.test(file));
const entry = await import(${JSON.stringify(fromRoot("conformance/index.ts"))});
const seen = [ajvLoaded()];
${steps.map((step) => `${step};\nseen.push(ajvLoaded());`).join("\n")}
console.log(JSON.stringify(seen));
`;

describe("start-up", () => {
  it("importing the suite's entry and opening a checker of the bundled contract load no ajv compiler", () => {
    expect(inChild(probe(["await entry.openConformanceChecker()"]))).toEqual([false, false]);
  });

  it("createConformanceChecker loads ajv, when it is called", () => {
    expect(inChild(probe(["entry.createConformanceChecker()"]))).toEqual([false, true]);
  });
});
