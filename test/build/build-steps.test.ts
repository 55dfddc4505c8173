// `npm start` skips the build steps whose inputs did not change: a step reruns when an input, its
// tools' lockfile or one of its outputs changed, or when it failed last time; `build:all` runs all.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { STEPS } from "../../scripts/lib/build-plan.js";
import { type BuildStep, runSteps } from "../../scripts/lib/build-steps.js";
import { fromRoot } from "../../scripts/lib/paths.js";

let root: string;
let ran: string[];
/** What each step does, by name: copies its input upper-cased (a) or its upstream's output (b). */
let behaviour: Record<string, () => boolean>;

const write = (path: string, text: string) => {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
};
const read = (path: string) => readFileSync(join(root, path), "utf8");

const A: BuildStep = { name: "a", script: "build:a", inputs: ["src", "lock.json"], outputs: ["gen/a.txt"] };
const B: BuildStep = { name: "b", script: "build:b", inputs: ["lock.json", "gen/a.txt"], outputs: ["out"] };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "idv-build-steps-"));
  ran = [];
  write("src/in.txt", "hello");
  write("lock.json", '{"tool":"1.0.0"}');
  behaviour = {
    a: () => (write("gen/a.txt", read("src/in.txt").toUpperCase()), true),
    b: () => (write("out/b.txt", `${read("gen/a.txt")}!`), true),
  };
});

function build(skipUnchanged = true) {
  const outcomes = runSteps([A, B], {
    root,
    stampDir: join(root, "build/stamps"),
    skipUnchanged,
    run: (step) => {
      ran.push(step.name);
      return behaviour[step.name]?.() ?? false;
    },
  });
  return Object.fromEntries(outcomes);
}

describe("runSteps", () => {
  it("runs every step the first time, and skips them all when nothing changed", () => {
    expect(build()).toEqual({ a: "ran", b: "ran" });
    expect(build()).toEqual({ a: "skipped", b: "skipped" });
    expect(read("out/b.txt")).toBe("HELLO!");
    expect(ran).toEqual(["a", "b"]);
  });

  it("reruns a step whose input changed, and the next one only if its output changed", () => {
    build();
    write("src/in.txt", "world");
    expect(build()).toEqual({ a: "ran", b: "ran" });
    expect(read("out/b.txt")).toBe("WORLD!");
    // Another input, the same output: the next step has nothing new to read.
    write("src/other.txt", "x");
    expect(build()).toEqual({ a: "ran", b: "skipped" });
  });

  it("reruns every step when the lockfile (its tools' versions) changed", () => {
    build();
    write("lock.json", '{"tool":"1.0.1"}');
    expect(build()).toEqual({ a: "ran", b: "ran" });
  });

  it("reruns a step whose output was edited or deleted: a stale output is never kept", () => {
    build();
    write("out/b.txt", "edited by hand");
    expect(build()).toEqual({ a: "skipped", b: "ran" });
    expect(read("out/b.txt")).toBe("HELLO!");
    rmSync(join(root, "gen/a.txt"));
    expect(build()).toEqual({ a: "ran", b: "skipped" });
  });

  it("stops at a failed step, and runs it again next time", () => {
    build();
    write("src/in.txt", "broken");
    behaviour.a = () => false;
    expect(build()).toEqual({ a: "failed" });
    behaviour.a = () => (write("gen/a.txt", "FIXED"), true);
    expect(build()).toEqual({ a: "ran", b: "ran" });
  });

  it("runs every step without skipUnchanged (build:all), and its stamps serve the next start", () => {
    build(false);
    expect(build(false)).toEqual({ a: "ran", b: "ran" });
    expect(build()).toEqual({ a: "skipped", b: "skipped" });
  });
});

describe("the build plan (scripts/lib/build-plan.ts)", () => {
  const overlap = (x: string, y: string) => x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);

  it("reads nothing that the step itself or a later one writes (that would rerun it at every start)", () => {
    const loops = STEPS.flatMap((step, i) =>
      STEPS.slice(i).flatMap((later) =>
        step.inputs.flatMap((input) =>
          later.outputs.filter((output) => overlap(input, output)).map((o) => `${step.name} reads ${o}`),
        ),
      ),
    );
    expect(loops).toEqual([]);
  });

  it("names as an output every file in generated/, so none is served without its step", () => {
    const outputs = new Set(STEPS.flatMap((s) => s.outputs));
    const orphans = readdirSync(fromRoot("generated")).filter((f) => !outputs.has(`generated/${f}`));
    expect(orphans).toEqual([]);
  });
});
