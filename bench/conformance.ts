// npm run bench: idv-conformance (both library entry points) beside Prism's validator
// (@stoplight/prism-http) on a corpus made without the suite, in the same run: exchanges per CPU second
// cold and warm, verdict agreement with every disagreement listed, time to first verdict paired with a bare
// node, memory on large NDJSON and HAR files, and what --coverage adds to check. Writes its section of
// docs/benchmarks.md (the sides: conformance-sides.ts; timing from outside: conformance-processes.ts;
// coverage: conformance-coverage.ts; the section's text: conformance-markdown.ts).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { measureCoverage } from "./conformance-coverage.js";
import { conformanceMarkdown, type FirstVerdicts, type MemoryRuns } from "./conformance-markdown.js";
import { memoryRun, paired, timeToFirstVerdict, writeLines } from "./conformance-processes.js";
import { compileConformance, measureCorpus } from "./conformance-sides.js";
import { writeHar } from "./corpus-har.js";
import { measureDrift } from "./drift-peer.js";
import { buildIndependentCorpus, type IndependentEntry } from "./corpus-independent.js";

/** Exchanges in each corpus: the JSON-only one, the mixed one, and at most as many small JSON-only lines. */
const CORPUS_SIZE = Number(process.env.CONFORMANCE_BENCH_SIZE ?? 5_000);
const ROUNDS = Math.max(3, Number(process.env.CONFORMANCE_BENCH_ROUNDS ?? 5));
const BIG_LINES = Number(process.env.CONFORMANCE_BENCH_BIG_LINES ?? 300_000);
/** The small-line corpus: JSON-only lines under this many bytes, near the issue's own corpus (880-byte lines). */
const SMALL_LINE_BYTES = 4096;
/** HAR sizes for the memory runs, in MB: the 70 MB, and a larger one to show memory stays flat. */
const HAR_MB = (process.env.CONFORMANCE_BENCH_HAR_MB ?? "70,1024").split(",").map(Number);
/** `drift`: measure only \`redocly drift\` beside the CLI (its own section), not the rest. */
const ONLY = process.env.CONFORMANCE_BENCH_ONLY;
const spec = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));

const log = (message: string) => process.stderr.write(`bench:conformance ${message}\n`);

/** The three corpora cut from the exchanges made, each written as an NDJSON file, and one valid exchange. */
function writeCorpora(dir: string, all: IndependentEntry[], entries: IndependentEntry[]) {
  const jsonOnly = all.filter((e) => !e.line.includes('"bodyEncoding"'));
  const jsonEntries = jsonOnly.slice(0, CORPUS_SIZE);
  // The same exchanges, cut by size: large bodies make the floor's JSON.parse most of any side's time.
  const smallEntries = jsonOnly
    .filter((e) => Buffer.byteLength(e.line) < SMALL_LINE_BYTES)
    .slice(0, CORPUS_SIZE);
  const write = (name: string, lines: string[]) => {
    const file = join(dir, name);
    writeFileSync(file, `${lines.join("\n")}\n`);
    return file;
  };
  return {
    jsonEntries,
    smallEntries,
    corpusFile: write(
      "corpus.ndjson",
      entries.map((e) => e.line),
    ),
    jsonFile: write(
      "json.ndjson",
      jsonEntries.map((e) => e.line),
    ),
    smallFile: write(
      "small.ndjson",
      smallEntries.map((e) => e.line),
    ),
    oneFile: write("one.ndjson", [`${entries.find((e) => e.mutation === undefined)?.line}`]),
  };
}

/** Time to first verdict of the CLI run each way users run it, paired with a bare node, and Prism's. */
async function measureFirstVerdict(dist: string, dir: string, oneFile: string): Promise<FirstVerdicts> {
  const node = process.execPath;
  // The bin as npm installs it: node_modules/.bin/idv-conformance, a link to the compiled CLI, run by its
  // #! line (what `npx idv-conformance` finds once the package is installed).
  // A folder of its own: dir/node_modules is a link to the repository's.
  const binDir = join(dir, "installed/node_modules/.bin");
  mkdirSync(binDir, { recursive: true });
  chmodSync(join(dist, "conformance/cli.js"), 0o755);
  symlinkSync(join(dist, "conformance/cli.js"), join(binDir, "idv-conformance"));
  const runs = 9;
  const times = (await paired(
    {
      bare: { cmd: node, args: ["-e", "console.log(1)"] },
      cli: { cmd: node, args: [join(dist, "conformance/cli.js"), "check", oneFile, "--format", "json"] },
      bin: { cmd: join(binDir, "idv-conformance"), args: ["check", oneFile, "--format", "json"] },
      npmRun: {
        cmd: "npm",
        args: ["run", "-s", "conformance", "--", "check", oneFile, "--format", "json"],
      },
    },
    runs,
  )) as FirstVerdicts["times"];
  // npx needs this checkout's dist/ (npm run build); without it the row says so rather than failing the bench.
  const npx = await paired(
    {
      npx: { cmd: "npx", args: ["--no-install", "idv-conformance", "check", oneFile, "--format", "json"] },
    },
    3,
  ).catch(() => ({ npx: [Number.NaN] }));
  const prism = await timeToFirstVerdict(
    [join(dist, "bench/conformance-child.js"), "prism-first", oneFile],
    3,
  );
  return { runs, times, npx: npx.npx as number[], prism };
}

/** The CLI's memory on a large NDJSON file, sampled through the run, and its peak on each HAR size. */
async function measureMemory(dist: string, dir: string, lines: string[]): Promise<MemoryRuns> {
  const bigFile = join(dir, "big.ndjson");
  await writeLines(bigFile, lines, BIG_LINES);
  const cli = join(dist, "conformance/cli.js");
  const big = await memoryRun([cli, "check", bigFile, "--out", join(dir, "big-report.txt")]);
  rmSync(bigFile, { force: true });
  const hars: MemoryRuns["hars"] = [];
  for (const mb of HAR_MB) {
    const harFile = join(dir, "big.har");
    const count = await writeHar(harFile, lines, mb * 1024 * 1024);
    const run = await memoryRun([cli, "check", harFile, "--out", join(dir, "har-report.txt")]);
    hars.push({ mb, entries: count, seconds: run.seconds, peakMb: run.peakMb });
    rmSync(harFile, { force: true });
  }
  return { lines: BIG_LINES, big, hars };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "idv-bench-conformance-"));
  try {
    log("compiling");
    const dist = compileConformance(dir, spec, log);
    // Twice the size, so that the JSON-only corpus (no base64 body) can be as large as the mixed one.
    log(`building an independent corpus of ${2 * CORPUS_SIZE} exchanges (json-schema-faker, seed 14)`);
    const { entries: all, stats } = buildIndependentCorpus(spec, 2 * CORPUS_SIZE, 14);
    const entries = all.slice(0, CORPUS_SIZE);
    log(`redocly drift beside idv-conformance check, on the mixed corpus as HAR`);
    writeBenchSection("conformance-drift", await measureDrift(dist, dir, entries, ROUNDS));
    if (ONLY === "drift") return;
    const { jsonEntries, smallEntries, corpusFile, jsonFile, smallFile, oneFile } = writeCorpora(
      dir,
      all,
      entries,
    );

    log(`JSON-only corpus (${jsonEntries.length} exchanges)`);
    const json = measureCorpus(dist, jsonFile, jsonEntries, ROUNDS, log);
    log(`JSON-only lines under ${SMALL_LINE_BYTES} bytes (${smallEntries.length} exchanges)`);
    const small = measureCorpus(dist, smallFile, smallEntries, ROUNDS, log);
    log(`mixed corpus (${entries.length} exchanges)`);
    const mixed = measureCorpus(dist, corpusFile, entries, ROUNDS, log);
    log(`check beside check --coverage, on the mixed corpus`);
    // Twice the rounds: a run is short, and what coverage adds is small beside the rounds' spread.
    const coverage = measureCoverage(dist, dir, corpusFile, entries.length, 2 * ROUNDS, log);

    log("time to first verdict, paired with node -e");
    const first = await measureFirstVerdict(dist, dir, oneFile);
    log(`memory: ${BIG_LINES} NDJSON lines, then HAR files of ${HAR_MB.join(" and ")} MB`);
    const memory = await measureMemory(
      dist,
      dir,
      entries.map((e) => e.line),
    );

    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const markdown = conformanceMarkdown(
      {
        stats,
        made: all.length,
        entries,
        jsonEntries,
        smallEntries,
        smallLineBytes: SMALL_LINE_BYTES,
        json,
        small,
        mixed,
        rounds: ROUNDS,
        first,
        memory,
        coverage,
      },
      load,
    );
    writeBenchSection("conformance", markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:conformance failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
});
