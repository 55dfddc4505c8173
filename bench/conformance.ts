// npm run bench: idv-conformance (both library entry points) beside Prism's validator
// (@stoplight/prism-http) on a corpus made without the suite, in the same run: exchanges per CPU second
// cold and warm, verdict agreement with every disagreement listed, time to first verdict paired with a bare
// node, and memory on large NDJSON and HAR files. Writes its section of docs/benchmarks.md.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildValidatorsModule } from "../scripts/build-conformance.js";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { compileForBench } from "./compile.js";
import { writeHar } from "./corpus-har.js";
import { measureDrift } from "./drift-peer.js";
import { buildIndependentCorpus, type IndependentEntry } from "./corpus-independent.js";

/** Exchanges in each corpus: the JSON-only one, the mixed one, and at most as many small JSON-only lines. */
const CORPUS_SIZE = Number(process.env.CONFORMANCE_BENCH_SIZE ?? 5_000);
const ROUNDS = Math.max(3, Number(process.env.CONFORMANCE_BENCH_ROUNDS ?? 5));
const BIG_LINES = Number(process.env.CONFORMANCE_BENCH_BIG_LINES ?? 300_000);
/** The small-line corpus: JSON-only lines under this many bytes, near the issue's own corpus (880-byte lines). */
const SMALL_LINE_BYTES = 4096;
/** HAR sizes for the memory runs, in MB: the issue's 70 MB, and a larger one to show memory stays flat. */
const HAR_MB = (process.env.CONFORMANCE_BENCH_HAR_MB ?? "70,1024").split(",").map(Number);
/** `drift`: measure only \`redocly drift\` beside the CLI (its own section), not the rest. */
const ONLY = process.env.CONFORMANCE_BENCH_ONLY;
const spec = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));

const log = (message: string) => process.stderr.write(`bench:conformance ${message}\n`);

/** Compile the conformance sources with the project's tsc settings, as `dist/` will hold them. */
function compile(dir: string): string {
  const { out, problems } = compileForBench(dir, {
    include: [fromRoot("conformance/**/*.ts"), fromRoot("bench/conformance-child.ts")],
  });
  if (problems) log(`tsc reported type errors (output still emitted):\n${problems}`);
  // tsc copies imported JSON but not JavaScript: the build-time validators are written beside it, fresh
  // from the contract being measured, as \`npm run build:conformance\` would write them.
  writeFileSync(join(out, "generated/conformance-validators.js"), buildValidatorsModule(spec));
  return out;
}

interface ChildReport {
  exchanges: number;
  /** CPU from process start to the end of the first pass (reading the corpus left out). */
  coldCpuMs: number;
  coldWallMs: number;
  warmCpuMs: number;
  warmWallMs: number;
  maxRssMb: number;
  verdicts: { ok: boolean; checks: string[] }[];
}

type Side = "create" | "open" | "prism" | "floor";
const SIDES: Side[] = ["create", "open", "prism", "floor"];
/** The sides that judge: the floor only parses, so it has no verdicts to compare. */
type Judge = Exclude<Side, "floor">;
const SIDE_NAMES: Record<Side, string> = {
  create: "`createConformanceChecker`",
  open: "`openConformanceChecker` (the CLI's)",
  prism: "Prism's validator",
  floor: "the floor",
};

function child(dist: string, mode: Side, corpus: string): ChildReport {
  const run = spawnSync(process.execPath, [join(dist, "bench/conformance-child.js"), mode, corpus], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${mode} child failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function timeToFirstVerdict(command: string[], runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await firstLineOf(process.execPath, command));
  return median(times);
}

/** Run the CLI on a large file and sample its resident memory from /proc while it runs. */
function memoryRun(
  command: string[],
): Promise<{ seconds: number; samples: { at: number; rssMb: number }[]; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const proc = spawn(process.execPath, command, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const samples: { at: number; rssMb: number }[] = [];
    let peakMb = 0;
    const timer = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
        const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
        peakMb = Math.max(peakMb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
        samples.push({ at: (performance.now() - start) / 1000, rssMb: rss });
      } catch {
        // The process has just ended.
      }
    }, 250);
    proc.on("error", reject);
    proc.on("close", (code) => {
      clearInterval(timer);
      if (code !== 0 && code !== 1) reject(new Error(`CLI exited ${code}: ${stderr}`));
      else resolve({ seconds: (performance.now() - start) / 1000, samples, peakMb });
    });
  });
}

async function writeLines(file: string, lines: string[], total: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < total; i++) {
    if (!out.write(`${lines[i % lines.length]}\n`))
      await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

const spread = (values: number[], digits = 0): string =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
/** A count or rate rounded, with thousands separators. */
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

/** A corpus's line sizes: median and mean, in bytes. */
function lineSizes(entries: IndependentEntry[]): string {
  const sizes = entries.map((e) => Buffer.byteLength(e.line)).sort((a, b) => a - b);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  return `lines of ${fmt(median(sizes))} bytes median, ${fmt(mean)} mean`;
}

/** Median and spread of a side's rounds: exchanges per CPU second, cold and warm. */
function rates(reports: ChildReport[]) {
  const cold = reports.map((r) => r.exchanges / (r.coldCpuMs / 1000));
  const warm = reports.map((r) => r.exchanges / (r.warmCpuMs / 1000));
  return {
    cold: median(cold),
    coldSpread: `${fmt(Math.min(...cold))}–${fmt(Math.max(...cold))}`,
    warm: median(warm),
    warmSpread: `${fmt(Math.min(...warm))}–${fmt(Math.max(...warm))}`,
    rss: median(reports.map((r) => r.maxRssMb)),
  };
}

/** The check of ours each mutation should trip (any of them): whether the right rule said no, not only whether something did. */
const EXPECTED_CHECKS: Record<string, string[]> = {
  "unknown route": ["route_known"],
  "wrong method": ["route_known"],
  "missing credential": ["auth_headers_present"],
  "integer id with exponent": ["request_parameters"],
  "integer id with leading zero": ["request_parameters"],
  "integer id beyond 2^53": ["request_parameters"],
  "request media type json-evil": ["request_content_type"],
  "request media type text/plain": ["request_content_type"],
  "request body not JSON": ["request_body_schema"],
  "request body truncated": ["request_body_schema"],
  "request body invalid UTF-8": ["request_body_schema"],
  "request member missing": ["request_body_schema"],
  "request member wrong type": ["request_body_schema"],
  "request member undescribed": ["request_body_schema"],
  "status undocumented": ["status_code_documented"],
  "response missing": ["status_code_documented"],
  "response media type wrong": ["response_content_type"],
  "response body not JSON": ["response_body_schema"],
  "response member missing": ["response_body_schema", "error_shape"],
  "response member wrong type": ["response_body_schema", "error_shape"],
  "PDF that is not one": ["response_body_schema"],
  "Content-Disposition missing": ["response_headers"],
  "error body as a success body": ["error_shape"],
};

/** Mutations our side refused by another check than the expected one, by mutation and checks given. */
function wrongCheck(
  report: ChildReport,
  entries: IndependentEntry[],
): { hits: number; of: number; misses: Map<string, number> } {
  const misses = new Map<string, number>();
  let hits = 0;
  let of = 0;
  report.verdicts.forEach((v, i) => {
    const mutation = entries[i]?.mutation;
    const expected = mutation === undefined ? undefined : EXPECTED_CHECKS[mutation];
    if (!expected || v.ok) return;
    of++;
    if (v.checks.some((c) => expected.includes(c))) hits++;
    else {
      const key = `${mutation} → ${v.checks.join(", ")}`;
      misses.set(key, (misses.get(key) ?? 0) + 1);
    }
  });
  return { hits, of, misses };
}

/** Agreement of a side's verdicts with the labels, and every disagreement by what it was and what it got. */
function agreement(report: ChildReport, entries: IndependentEntry[]) {
  const disagreements = new Map<string, number>();
  let right = 0;
  report.verdicts.forEach((v, i) => {
    const want = entries[i] as IndependentEntry;
    if (v.ok === (want.mutation === undefined)) {
      right++;
      return;
    }
    const got = v.ok ? "passed" : `failed (${v.checks.slice(0, 3).join(", ")})`;
    const key = `${want.mutation ?? "valid exchange"} → ${got}`;
    disagreements.set(key, (disagreements.get(key) ?? 0) + 1);
  });
  return { right, disagreements };
}

/** Spawn-to-first-line times of commands, alternated run by run so load affects them alike. */
async function paired(commands: Record<string, { cmd: string; args: string[] }>, runs: number) {
  const times: Record<string, number[]> = {};
  for (let i = 0; i < runs; i++) {
    for (const [name, { cmd, args }] of Object.entries(commands)) {
      (times[name] ??= []).push(await firstLineOf(cmd, args));
    }
  }
  return times;
}

/** Milliseconds from spawn to the first line on stdout of any command. */
function firstLineOf(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"], cwd: fromRoot() });
    let done = false;
    proc.stdout.on("data", (chunk: Buffer) => {
      if (!done && chunk.includes(10)) {
        done = true;
        resolve(performance.now() - start);
      }
    });
    proc.on("error", reject);
    proc.on("close", () => (done ? undefined : reject(new Error(`no output from ${cmd} ${args.join(" ")}`))));
  });
}

/** One corpus measured: every side's rounds, rates, agreement with the labels, and whether the entry points agree. */
function measureCorpus(dist: string, file: string, entries: IndependentEntry[]) {
  // Rotate the order each round: the machine is shared and its load changes.
  const runs: Record<Side, ChildReport[]> = { create: [], open: [], prism: [], floor: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = [...SIDES.slice(r % SIDES.length), ...SIDES.slice(0, r % SIDES.length)];
    log(`round ${r + 1}/${ROUNDS}: ${order.join(", ")}`);
    for (const side of order) runs[side].push(child(dist, side, file));
  }
  const measured = {
    create: rates(runs.create),
    open: rates(runs.open),
    prism: rates(runs.prism),
    floor: rates(runs.floor),
  };
  const agree: Record<Judge, ReturnType<typeof agreement>> = {
    create: agreement(runs.create[0] as ChildReport, entries),
    open: agreement(runs.open[0] as ChildReport, entries),
    prism: agreement(runs.prism[0] as ChildReport, entries),
  };
  const byCheck = wrongCheck(runs.open[0] as ChildReport, entries);
  // The two library entry points must give the same verdicts, run after run.
  const sameVerdicts = runs.create.every((r, i) =>
    r.verdicts.every((v, j) => v.ok === runs.open[i]?.verdicts[j]?.ok),
  );
  return { measured, agree, byCheck, sameVerdicts };
}

type Measured = ReturnType<typeof measureCorpus>;

/** A corpus's table: each side's rates, its time beside the floor's and Prism's, memory and verdicts. */
function corpusTable(m: Measured, count: number): string {
  const { measured, agree } = m;
  const cell = (side: Side, f: (s: Side) => string) => f(side);
  const row = (name: string, f: (s: Side) => string) =>
    `| ${name} | ${SIDES.map((s) => cell(s, f)).join(" | ")} |`;
  // Time per exchange relative to the floor's: the floor's rate over the side's.
  const vsFloor = (s: Side, key: "warm" | "cold") => (measured.floor[key] / measured[s][key]).toFixed(1);
  const vsPrism = (s: Side, key: "warm" | "cold") => (measured[s][key] / measured.prism[key]).toFixed(1);
  return [
    `| | ${SIDES.map((s) => SIDE_NAMES[s]).join(" | ")} |`,
    `|---|${SIDES.map(() => "---").join("|")}|`,
    row(
      "Exchanges/CPU s, cold (median; range)",
      (s) => `${fmt(measured[s].cold)} (${measured[s].coldSpread})`,
    ),
    row(
      "Exchanges/CPU s, warm (median; range)",
      (s) => `${fmt(measured[s].warm)} (${measured[s].warmSpread})`,
    ),
    row("Time beside the floor's, cold / warm", (s) => `${vsFloor(s, "cold")}× / ${vsFloor(s, "warm")}×`),
    row("Rate beside Prism's, cold / warm", (s) => `${vsPrism(s, "cold")}× / ${vsPrism(s, "warm")}×`),
    row("Peak RSS (corpus held in memory, median)", (s) => `${measured[s].rss.toFixed(0)} MB`),
    row("Verdicts agreeing with the labels", (s) => (s === "floor" ? "—" : `${agree[s].right} / ${count}`)),
  ].join("\n");
}

/** Every disagreement with the labels, by side. */
function disagreementRows(m: Measured, corpus: string): string[] {
  return (Object.keys(m.agree) as Judge[]).flatMap((side) =>
    [...m.agree[side].disagreements.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([what, n]) => `| ${corpus} | ${SIDE_NAMES[side]} | ${what} | ${n} |`),
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "idv-bench-conformance-"));
  try {
    log("compiling");
    const dist = compile(dir);
    // Twice the size, so that the JSON-only corpus (no base64 body) can be as large as the mixed one.
    log(`building an independent corpus of ${2 * CORPUS_SIZE} exchanges (json-schema-faker, seed 14)`);
    const { entries: all, stats } = buildIndependentCorpus(spec, 2 * CORPUS_SIZE, 14);
    const entries = all.slice(0, CORPUS_SIZE);
    log(`redocly drift beside idv-conformance check, on the mixed corpus as HAR`);
    writeBenchSection("conformance-drift", await measureDrift(dist, dir, entries, ROUNDS));
    if (ONLY === "drift") return;
    const jsonOnly = all.filter((e) => !e.line.includes('"bodyEncoding"'));
    const jsonEntries = jsonOnly.slice(0, CORPUS_SIZE);
    // The same exchanges, cut by size: large bodies make the floor's JSON.parse most of any side's time.
    const smallEntries = jsonOnly
      .filter((e) => Buffer.byteLength(e.line) < SMALL_LINE_BYTES)
      .slice(0, CORPUS_SIZE);
    const lines = entries.map((e) => e.line);
    const corpusFile = join(dir, "corpus.ndjson");
    writeFileSync(corpusFile, `${lines.join("\n")}\n`);
    const jsonFile = join(dir, "json.ndjson");
    writeFileSync(jsonFile, `${jsonEntries.map((e) => e.line).join("\n")}\n`);
    const smallFile = join(dir, "small.ndjson");
    writeFileSync(smallFile, `${smallEntries.map((e) => e.line).join("\n")}\n`);
    const oneFile = join(dir, "one.ndjson");
    writeFileSync(oneFile, `${entries.find((e) => e.mutation === undefined)?.line}\n`);

    log(`JSON-only corpus (${jsonEntries.length} exchanges)`);
    const json = measureCorpus(dist, jsonFile, jsonEntries);
    log(`JSON-only lines under ${SMALL_LINE_BYTES} bytes (${smallEntries.length} exchanges)`);
    const small = measureCorpus(dist, smallFile, smallEntries);
    log(`mixed corpus (${entries.length} exchanges)`);
    const mixed = measureCorpus(dist, corpusFile, entries);
    const { agree, byCheck, sameVerdicts } = mixed;

    log("time to first verdict, paired with node -e");
    const node = process.execPath;
    // The bin as npm installs it: node_modules/.bin/idv-conformance, a link to the compiled CLI, run by its
    // #! line (what `npx idv-conformance` finds once the package is installed).
    // A folder of its own: dir/node_modules is a link to the repository's.
    const binDir = join(dir, "installed/node_modules/.bin");
    mkdirSync(binDir, { recursive: true });
    chmodSync(join(dist, "conformance/cli.js"), 0o755);
    symlinkSync(join(dist, "conformance/cli.js"), join(binDir, "idv-conformance"));
    const firstRuns = 9;
    const first = await paired(
      {
        bare: { cmd: node, args: ["-e", "console.log(1)"] },
        cli: { cmd: node, args: [join(dist, "conformance/cli.js"), "check", oneFile, "--format", "json"] },
        bin: { cmd: join(binDir, "idv-conformance"), args: ["check", oneFile, "--format", "json"] },
        npmRun: {
          cmd: "npm",
          args: ["run", "-s", "conformance", "--", "check", oneFile, "--format", "json"],
        },
      },
      firstRuns,
    );
    // npx needs this checkout's dist/ (npm run build); without it the row says so rather than failing the bench.
    const npx = await paired(
      {
        npx: { cmd: "npx", args: ["--no-install", "idv-conformance", "check", oneFile, "--format", "json"] },
      },
      3,
    ).catch(() => ({ npx: [Number.NaN] }));
    const prismFirst = await timeToFirstVerdict(
      [join(dist, "bench/conformance-child.js"), "prism-first", oneFile],
      3,
    );

    log(`memory: ${BIG_LINES} NDJSON lines, then HAR files of ${HAR_MB.join(" and ")} MB`);
    const bigFile = join(dir, "big.ndjson");
    await writeLines(bigFile, lines, BIG_LINES);
    const cli = join(dist, "conformance/cli.js");
    const big = await memoryRun([cli, "check", bigFile, "--out", join(dir, "big-report.txt")]);
    rmSync(bigFile, { force: true });
    const hars: { mb: number; entries: number; seconds: number; peakMb: number }[] = [];
    for (const mb of HAR_MB) {
      const harFile = join(dir, "big.har");
      const count = await writeHar(harFile, lines, mb * 1024 * 1024);
      const run = await memoryRun([cli, "check", harFile, "--out", join(dir, "har-report.txt")]);
      hars.push({ mb, entries: count, seconds: run.seconds, peakMb: run.peakMb });
      rmSync(harFile, { force: true });
    }
    const rssAt = (fraction: number) =>
      big.samples[Math.min(big.samples.length - 1, Math.floor(big.samples.length * fraction))]?.rssMb ??
      Number.NaN;

    const cliFirst = median(first.cli as number[]);
    const binFirst = median(first.bin as number[]);
    const npmFirst = median(first.npmRun as number[]);
    const bare = median(first.bare as number[]);
    const mutatedCount = [...stats.mutated.values()].reduce((a, b) => a + b, 0);
    const dropped = [...stats.dropped.entries()].map(([k, v]) => `${k} ${v}`).join(", ");
    const disagreements = [
      ...disagreementRows(json, "JSON-only"),
      ...disagreementRows(small, "small lines"),
      ...disagreementRows(mixed, "mixed"),
    ];
    // The floor's time beside a side's: the floor's rate over the side's.
    const overFloor = (m: Measured, side: Judge) => m.measured.floor.warm / m.measured[side].warm;
    const overPrism = (m: Measured, side: Judge, key: "warm" | "cold") =>
      m.measured[side][key] / m.measured.prism[key];
    const targets = [
      [
        "warm ≤ 2× the floor's time, JSON-only corpus (create / open)",
        overFloor(json, "create") <= 2 && overFloor(json, "open") <= 2,
        `${overFloor(json, "create").toFixed(2)}× / ${overFloor(json, "open").toFixed(2)}×`,
      ],
      [
        `the same, on its lines under ${SMALL_LINE_BYTES / 1024} KB (create / open)`,
        overFloor(small, "create") <= 2 && overFloor(small, "open") <= 2,
        `${overFloor(small, "create").toFixed(2)}× / ${overFloor(small, "open").toFixed(2)}×`,
      ],
      [
        "cold ≥ 10× Prism, JSON-only / small lines / mixed (open)",
        [json, small, mixed].every((m) => overPrism(m, "open", "cold") >= 10),
        [json, small, mixed].map((m) => `${overPrism(m, "open", "cold").toFixed(1)}×`).join(" / "),
      ],
      [
        "every verdict right by the contract (create / open, every corpus)",
        [json, small, mixed].every((m) => m.agree.create.right === m.agree.open.right) &&
          json.agree.open.right === jsonEntries.length &&
          small.agree.open.right === smallEntries.length &&
          agree.open.right === entries.length,
        `JSON-only ${json.agree.create.right} / ${json.agree.open.right} of ${jsonEntries.length}; small lines ${small.agree.create.right} / ${small.agree.open.right} of ${smallEntries.length}; mixed ${agree.create.right} / ${agree.open.right} of ${entries.length}`,
      ],
      [
        "the two entry points agree on every exchange, every round",
        json.sameVerdicts && small.sameVerdicts && sameVerdicts,
        json.sameVerdicts && small.sameVerdicts && sameVerdicts ? "yes" : "no",
      ],
      [
        "first verdict ≤ 300 ms wall, `node_modules/.bin/idv-conformance`",
        binFirst <= 300,
        `${binFirst.toFixed(0)} ms (node -e: ${bare.toFixed(0)} ms)`,
      ],
      [
        `peak RSS ≤ 150 MB on a ${HAR_MB[0]} MB HAR`,
        (hars[0]?.peakMb ?? Infinity) <= 150,
        `${hars[0]?.peakMb.toFixed(0)} MB`,
      ],
      [
        "HAR memory flat with size",
        hars.length > 1 && (hars.at(-1)?.peakMb ?? 0) - (hars[0]?.peakMb ?? 0) <= 30,
        hars.map((h) => `${h.mb} MB → ${h.peakMb.toFixed(0)} MB`).join(", "),
      ],
    ] as const;
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const markdown = `## Conformance suite (\`npm run bench\`)

**Corpus**, made without the suite (\`bench/corpus-independent.ts\`): exchanges over every operation, bodies
from the schemas (json-schema-faker 0.6.3, seeded; ${fmt(stats.fromFaker)} values) and the contract's examples
(${fmt(stats.fromExamples)}), header names in Canonical-Case, lower and upper case beside the headers clients and
servers add, absolute URLs on three origins with query strings, PDF, ZIP and multipart bodies as base64,
documented error statuses now and then. ${fmt(mutatedCount)} of the ${fmt(all.length)} exchanges made carry one of
${stats.mutated.size} mutations (${[...stats.mutated.entries()].map(([k, v]) => `${k} ${v}`).join(", ")}). Every label —
valid or not — was confirmed by a reference validator written inside the bench (\`bench/corpus-reference.ts\`:
ajv 2020 compiling the bundled schemas, plain routing and header rules; nothing shared with the suite);
samples it did not confirm were dropped (${dropped || "none"}). Three corpora are cut from it: **mixed**, the first
${fmt(entries.length)} exchanges (${lineSizes(entries)}); **JSON-only**, the first ${fmt(jsonEntries.length)} with no base64 body
(${lineSizes(jsonEntries)}); and **small lines**, the first ${fmt(smallEntries.length)} of those under ${fmt(SMALL_LINE_BYTES)} bytes
(${lineSizes(smallEntries)}), where the floor's parsing weighs least. A corpus of large base64 files is dominated by decoding, which the floor pays too.

**Method.** Each side runs in its own process, compiled (tsc), reading the same NDJSON lines:
\`createConformanceChecker\` (ajv compiles each validator on first use), \`openConformanceChecker\` (the CLI's:
validators generated at build time), Prism's validator (\`@stoplight/prism-http\` 5.12.0 router +
\`validateSecurity\`, \`validateInput\`, \`validateOutput\`, the line parsed and the body JSON-parsed for it) and
**the floor**: \`JSON.parse\` of the line, base64 decoding, \`JSON.parse\` of every JSON body, nothing else — what
no checker of this traffic can skip. Rates are exchanges per CPU second (user + system). **Cold**: from process
start (Node, modules, the contract, every validator's first use) to the end of the first pass; **warm**: a second
pass. ${ROUNDS} rounds, the order of the sides rotated each round; medians, with the range of the rounds. "Time
beside the floor's" is the floor's rate over the side's. Measured ${new Date().toISOString().slice(0, 10)}, Node
${process.version}, load average at the end ${load} on a shared 2-core machine.

JSON-only corpus:

${corpusTable(json, jsonEntries.length)}

JSON-only lines under ${fmt(SMALL_LINE_BYTES)} bytes:

${corpusTable(small, smallEntries.length)}

Mixed corpus:

${corpusTable(mixed, entries.length)}

The two entry points gave ${json.sameVerdicts && small.sameVerdicts && sameVerdicts ? "the same verdict on every exchange in every round" : "**different verdicts** on some exchanges"}.
Of the mutated exchanges ours refused in the mixed corpus, ${fmt(byCheck.hits)} of ${fmt(byCheck.of)} were refused by the check the mutation
targets${byCheck.misses.size === 0 ? "." : ` (${[...byCheck.misses.entries()].map(([k, n]) => `${k}: ${n}`).join("; ")}).`}
${
  disagreements.length === 0
    ? "No disagreement with the labels.\n"
    : `
Every disagreement with the labels, by corpus, side, what the exchange was and what the side said:

| Corpus | Side | Label → verdict | Exchanges |
|---|---|---|---|
${disagreements.join("\n")}
`
}
**First verdict** (one exchange, \`--format json\`, spawn to first line, ${firstRuns} runs alternated with a bare
\`node -e "console.log(1)"\`; medians, range): \`node_modules/.bin/idv-conformance\` (the bin as npm links it)
${binFirst.toFixed(0)} ms (${spread(first.bin as number[])}); \`node dist/conformance/cli.js\` ${cliFirst.toFixed(0)} ms
(${spread(first.cli as number[])}); \`npm run -s conformance\` (compiled CLI, dist up to date) ${npmFirst.toFixed(0)} ms (${spread(first.npmRun as number[])}); bare node
${bare.toFixed(0)} ms (${spread(first.bare as number[])}); \`npx --no-install idv-conformance\` ${median(npx.npx as number[]).toFixed(0)} ms — npm's own start,
the CLI inside it is the compiled one; Prism (router and validators loaded, first verdict) ${prismFirst.toFixed(0)} ms.

**Memory.** NDJSON: ${fmt(BIG_LINES)} lines in ${big.seconds.toFixed(0)} s (${fmt(BIG_LINES / big.seconds)}
exchanges/s end to end), RSS ${rssAt(0.1).toFixed(0)} MB at 10 % of the run, ${rssAt(0.5).toFixed(0)} MB at 50 %,
${rssAt(0.95).toFixed(0)} MB at 95 %, peak ${big.peakMb.toFixed(0)} MB. HAR, read as a stream: ${hars
      .map(
        (h) =>
          `${h.mb} MB (${fmt(h.entries)} entries) in ${h.seconds.toFixed(0)} s, peak RSS ${h.peakMb.toFixed(0)} MB`,
      )
      .join("; ")}.

| Target | Met | Measured |
|---|---|---|
${targets.map(([name, met, value]) => `| ${name} | ${met ? "yes" : "**no**"} | ${value} |`).join("\n")}
`;
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
