// The build steps of `npm start` and `npm run build:all`, each skippable when nothing it reads has
// changed. A step's stamp (build/stamps/<step>.json) records a digest of its inputs (files, the
// lockfile that pins its tools, Node's version, its command) and of the outputs it wrote; a step is
// skipped only when both still match, so an output edited, deleted or left by another branch is
// rebuilt, never served stale.
import { createHash, type Hash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

/** One build step: the npm script that runs it, what it reads and what it writes (paths from the root). */
export interface BuildStep {
  name: string;
  /** The npm script, such as "build:contract". */
  script: string;
  /** Files and folders it reads, its tools' lockfile included. */
  inputs: string[];
  /** Files and folders it writes. */
  outputs: string[];
}

/** Folders never read as inputs or outputs: installs and VCS data. */
const SKIPPED = new Set(["node_modules", ".git"]);

/** Add a file or a folder (recursively, in name order) to a digest: each file's path, then its bytes. */
function addPath(hash: Hash, root: string, path: string): void {
  const absolute = join(root, path);
  let stat;
  try {
    stat = statSync(absolute);
  } catch {
    // A missing path is part of the state too: its absence is digested.
    hash.update(`missing\0${path}\0`);
    return;
  }
  if (stat.isDirectory()) {
    for (const entry of readdirSync(absolute).sort()) {
      if (!SKIPPED.has(entry)) addPath(hash, root, join(path, entry));
    }
    return;
  }
  const bytes = readFileSync(absolute);
  hash.update(`file\0${relative(root, absolute)}\0${bytes.length}\0`);
  hash.update(bytes);
}

/** A digest of paths under root, as they are now. */
export function digestOf(root: string, paths: string[], extra = ""): string {
  const hash = createHash("sha256");
  hash.update(`${extra}\0`);
  for (const path of paths) addPath(hash, root, path);
  return hash.digest("hex");
}

interface Stamp {
  inputs: string;
  outputs: string;
}

const stampPath = (stampDir: string, step: BuildStep): string => join(stampDir, `${step.name}.json`);

function readStamp(stampDir: string, step: BuildStep): Stamp | undefined {
  try {
    const stamp = JSON.parse(readFileSync(stampPath(stampDir, step), "utf8")) as Partial<Stamp>;
    return typeof stamp.inputs === "string" && typeof stamp.outputs === "string"
      ? { inputs: stamp.inputs, outputs: stamp.outputs }
      : undefined;
  } catch {
    return undefined;
  }
}

export interface RunOptions {
  root: string;
  /** Where the stamps are kept (build/stamps). */
  stampDir: string;
  /** Skip a step whose inputs and outputs match its stamp; without it every step runs. */
  skipUnchanged: boolean;
  /** Runs one step; true when it succeeded. */
  run: (step: BuildStep) => boolean;
  log?: (line: string) => void;
}

/** What happened to each step: "ran", "skipped", or "failed" (the steps after it do not run). */
export type StepOutcome = "ran" | "skipped" | "failed";

/** Run the steps in order, skipping the unchanged ones when asked; stops at the first failure. */
export function runSteps(steps: BuildStep[], options: RunOptions): Map<string, StepOutcome> {
  const { root, stampDir, skipUnchanged, run, log = () => {} } = options;
  const outcomes = new Map<string, StepOutcome>();
  // Node's version and the command are inputs too: another compiler or script may write otherwise.
  const context = (step: BuildStep) => `${process.version}\0${step.script}`;
  for (const step of steps) {
    const inputs = digestOf(root, step.inputs, context(step));
    const stamp = readStamp(stampDir, step);
    if (skipUnchanged && stamp?.inputs === inputs && stamp.outputs === digestOf(root, step.outputs)) {
      log(`${step.script}: unchanged, skipped`);
      outcomes.set(step.name, "skipped");
      continue;
    }
    // A step that fails half-way leaves no stamp that could vouch for its outputs.
    rmSync(stampPath(stampDir, step), { force: true });
    if (!run(step)) {
      outcomes.set(step.name, "failed");
      return outcomes;
    }
    mkdirSync(stampDir, { recursive: true });
    // The inputs as they were when the step read them: an edit made while it ran reruns it next time.
    const stampNow: Stamp = { inputs, outputs: digestOf(root, step.outputs) };
    writeFileSync(stampPath(stampDir, step), `${JSON.stringify(stampNow)}\n`);
    outcomes.set(step.name, "ran");
  }
  return outcomes;
}
