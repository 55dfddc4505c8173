// What `--coverage` adds to `idv-conformance check`'s CPU time, on the bench's corpus (5,000 exchanges
// made from the schemas without the suite, seed 14), each run in a process of its own, the two modes
// alternated round by round in the same run:
// - whole process: the compiled CLI on the NDJSON file, as users run it (bench/whole-process.mjs reads
//   the CPU time at exit: Node's start, reading the file and writing the reports included);
// - checker only: opening the checker, every exchange checked and (with coverage) the report made, with
//   the file read and parsed before the clock starts (this module's `child` mode).
// `npm run bench` writes it into its section; standalone:
//   tsx bench/conformance-coverage.ts                       → the table, on stdout (compiled as the bench does)
//   node conformance-coverage.js child plain|coverage FILE  → one JSON line: CPU ms (the compiled module)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";

/** The two modes compared. */
type Mode = "plain" | "coverage";
const MODES: Mode[] = ["plain", "coverage"];

/** CPU milliseconds of each mode's rounds, by what was timed. */
export interface CoverageMeasured {
  exchanges: number;
  rounds: number;
  whole: Record<Mode, number[]>;
  checker: Record<Mode, number[]>;
}

/** The whole CLI run on the corpus, CPU ms read by the process at exit; exit 1 (findings) is a normal end. */
function wholeRun(dist: string, dir: string, corpus: string, mode: Mode): number {
  const usage = join(dir, "coverage-usage.json");
  const args = [join(dist, "conformance/cli.js"), "check", corpus, "--format", "json"];
  args.push("--out", join(dir, "coverage-check.json"));
  if (mode === "coverage") args.push("--coverage", join(dir, "coverage.json"));
  const run = spawnSync(process.execPath, [fromRoot("bench/whole-process.mjs"), usage, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`check (${mode}) exited ${run.status}: ${run.stderr.slice(0, 2000)}`);
  return JSON.parse(readFileSync(usage, "utf8")).cpuMs;
}

/** The checker alone, in a process of its own (this module, compiled, in `child` mode). */
function checkerRun(dist: string, corpus: string, mode: Mode): number {
  const run = spawnSync(
    process.execPath,
    [join(dist, "bench/conformance-coverage.js"), "child", mode, corpus],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`checker (${mode}) failed: ${run.stderr.slice(0, 2000)}`);
  return JSON.parse(run.stdout).cpuMs;
}

/** Both modes, both ways of timing, `rounds` rounds, the order of the modes swapped every round. */
export function measureCoverage(
  dist: string,
  dir: string,
  corpus: string,
  exchanges: number,
  rounds: number,
  log: (message: string) => void = () => {},
): CoverageMeasured {
  const m: CoverageMeasured = {
    exchanges,
    rounds,
    whole: { plain: [], coverage: [] },
    checker: { plain: [], coverage: [] },
  };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? MODES : [...MODES].reverse();
    log(`coverage round ${r + 1}/${rounds}: ${order.join(", ")}`);
    for (const mode of order) m.whole[mode].push(wholeRun(dist, dir, corpus, mode));
    for (const mode of order) m.checker[mode].push(checkerRun(dist, corpus, mode));
  }
  return m;
}

/** What coverage adds, in percent: of the medians, and the median of each round's pair. */
export function addedPercent(times: Record<Mode, number[]>): { ofMedians: number; paired: number[] } {
  const paired = times.plain.map((p, i) => ((times.coverage[i] as number) / p - 1) * 100);
  return { ofMedians: (median(times.coverage) / median(times.plain) - 1) * 100, paired };
}

const ms = (values: number[]) =>
  `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
const percent = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(1)} %`;

/** The table: CPU time of `check` and `check --coverage`, both ways, and what coverage adds. */
export function coverageTable(m: CoverageMeasured): string {
  const row = (name: string, times: Record<Mode, number[]>) => {
    const added = addedPercent(times);
    const pairs = `${percent(median(added.paired))} (${percent(Math.min(...added.paired))} to ${percent(Math.max(...added.paired))})`;
    return `| ${name} | ${ms(times.plain)} | ${ms(times.coverage)} | ${percent(added.ofMedians)} | ${pairs} |`;
  };
  return [
    "| CPU time, median (range) | `check` | `check --coverage` | Added (of the medians) | Added (each round's pair: median, range) |",
    "|---|---|---|---|---|",
    row("whole process: the CLI on the NDJSON file", m.whole),
    row("checker only: opening, every exchange, the report", m.checker),
  ].join("\n");
}

/** Child mode: one process, one mode, the checker's CPU time (the corpus read before the clock starts). */
async function child(mode: Mode, corpus: string): Promise<void> {
  const lines = readFileSync(corpus, "utf8").split("\n").filter(Boolean);
  const { openConformanceChecker, exchangeFromNdjson } = await import("../conformance/index.js");
  const { SeenLocations } = await import("../conformance/coverage/seen.js");
  // What the CLI loads for a plain check too (its flags and its summary), loaded before the clock in
  // both modes; the modules only coverage needs are loaded on the clock, as the CLI loads them.
  await import("../conformance/coverage/summary.js");
  const exchanges = lines.map((line, i) => exchangeFromNdjson(JSON.parse(line), i, i + 1));
  const start = process.cpuUsage();
  const seen = mode === "coverage" ? new SeenLocations() : undefined;
  const checker = await openConformanceChecker({ coverage: seen });
  let failed = 0;
  for (const exchange of exchanges) if (!checker.checkExchange(exchange).ok) failed++;
  if (seen)
    await (await import("../conformance/coverage/coverage-run.js")).reportOf({ command: "check" }, seen);
  const used = process.cpuUsage(start);
  process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, failed })}\n`);
}

/** Standalone: the sources compiled as `npm run bench` compiles them, and the table on stdout. */
async function standalone(): Promise<void> {
  const size = Number(process.env.CONFORMANCE_BENCH_SIZE ?? 5_000);
  const rounds = Math.max(3, Number(process.env.CONFORMANCE_BENCH_ROUNDS ?? 7));
  const { buildIndependentCorpus } = await import("./corpus-independent.js");
  const { compileConformance } = await import("./conformance-sides.js");
  const spec = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "idv-bench-coverage-"));
  const log = (message: string) => process.stderr.write(`bench:coverage ${message}\n`);
  try {
    log("compiling");
    const dist = compileConformance(dir, spec, log);
    const corpus = join(dir, "corpus.ndjson");
    const { entries } = buildIndependentCorpus(spec, 2 * size, 14);
    writeFileSync(
      corpus,
      `${entries
        .slice(0, size)
        .map((e) => e.line)
        .join("\n")}\n`,
    );
    const m = measureCoverage(dist, dir, corpus, size, rounds, log);
    process.stdout.write(
      `${size.toLocaleString("en-US")} exchanges, ${rounds} rounds:\n\n${coverageTable(m)}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "child")
    await child(process.argv[3] === "coverage" ? "coverage" : "plain", process.argv[4] as string);
  else await standalone();
}
