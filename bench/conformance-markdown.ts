// The conformance section of docs/benchmarks.md, from what bench/conformance.ts measured: the corpora,
// the method, each corpus's table, every disagreement, first verdict, memory, coverage and the targets.
import { median } from "../scripts/lib/benchmarks-md.js";
import { addedPercent, type CoverageMeasured, coverageTable } from "./conformance-coverage.js";
import { fmt, type Judge, type Measured, SIDE_NAMES, SIDES, type Side } from "./conformance-sides.js";
import type { CorpusStats, IndependentEntry } from "./corpus-independent.js";

/** Spawn-to-first-line times of the CLI's ways of being run, and Prism's. */
export interface FirstVerdicts {
  runs: number;
  times: Record<"bare" | "cli" | "bin" | "npmRun", number[]>;
  npx: number[];
  prism: number;
}

/** The memory runs: the large NDJSON file sampled through its run, and each HAR file's peak. */
export interface MemoryRuns {
  lines: number;
  big: { seconds: number; samples: { at: number; rssMb: number }[]; peakMb: number };
  hars: { mb: number; entries: number; seconds: number; peakMb: number }[];
}

/** Everything the section reports. */
export interface ConformanceResults {
  stats: CorpusStats;
  /** Exchanges made, before the corpora were cut. */
  made: number;
  entries: IndependentEntry[];
  jsonEntries: IndependentEntry[];
  smallEntries: IndependentEntry[];
  smallLineBytes: number;
  json: Measured;
  small: Measured;
  mixed: Measured;
  rounds: number;
  first: FirstVerdicts;
  memory: MemoryRuns;
  coverage: CoverageMeasured;
}

/** The most `--coverage` may add to check's CPU time (issue 34). */
const COVERAGE_BUDGET_PERCENT = 10;

const spread = (values: number[], digits = 0): string =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

/** A corpus's line sizes: median and mean, in bytes. */
function lineSizes(entries: IndependentEntry[]): string {
  const sizes = entries.map((e) => Buffer.byteLength(e.line)).sort((a, b) => a - b);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  return `lines of ${fmt(median(sizes))} bytes median, ${fmt(mean)} mean`;
}

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

/** The targets: each with whether it was met and what was measured. */
function targetsOf(r: ConformanceResults) {
  const { json, small, mixed, jsonEntries, smallEntries, entries } = r;
  const { agree, sameVerdicts } = mixed;
  const binFirst = median(r.first.times.bin);
  const bare = median(r.first.times.bare);
  const hars = r.memory.hars;
  const HAR_MB = hars.map((h) => h.mb);
  const SMALL_LINE_BYTES = r.smallLineBytes;
  const added = addedPercent(r.coverage.whole).ofMedians;
  // The floor's time beside a side's: the floor's rate over the side's.
  const overFloor = (m: Measured, side: Judge) => m.measured.floor.warm / m.measured[side].warm;
  const overPrism = (m: Measured, side: Judge, key: "warm" | "cold") =>
    m.measured[side][key] / m.measured.prism[key];
  return [
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
    [
      `\`--coverage\` adds ≤ ${COVERAGE_BUDGET_PERCENT} % to check's CPU time (whole process, median)`,
      added <= COVERAGE_BUDGET_PERCENT,
      `${added >= 0 ? "+" : ""}${added.toFixed(1)} %`,
    ],
  ] as const;
}

/** The corpus and the method, as the section opens. */
function opening(r: ConformanceResults, load: string): string {
  const { stats, entries, jsonEntries, smallEntries, rounds: ROUNDS } = r;
  const SMALL_LINE_BYTES = r.smallLineBytes;
  const mutatedCount = [...stats.mutated.values()].reduce((a, b) => a + b, 0);
  const dropped = [...stats.dropped.entries()].map(([k, v]) => `${k} ${v}`).join(", ");
  const all = { length: r.made };
  return `## Conformance suite (\`npm run bench\`)

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
${process.version}, load average at the end ${load} on a shared 2-core machine.`;
}

/** The coverage paragraph: check beside check --coverage, both ways of timing, and how wide the rounds were. */
function coverageParagraph(m: CoverageMeasured, load: string): string {
  const paired = addedPercent(m.whole).paired;
  const wide = Math.max(...paired) - Math.min(...paired) > COVERAGE_BUDGET_PERCENT;
  return `**Coverage.** \`check\` beside \`check --coverage FILE\` on the mixed corpus (${fmt(m.exchanges)} exchanges), ${m.rounds}
rounds in this run, the two modes alternated each round; medians, with the range of the rounds. **Whole
process**: the compiled CLI on the NDJSON file (\`--format json --out\`), CPU time read by the process at exit
(\`bench/whole-process.mjs\`: Node's start, reading the file and writing the reports included), the route
users take. **Checker only**: opening the checker, every exchange checked and, with coverage, the report
made, in a process of its own with the file read before the clock starts (\`bench/conformance-coverage.ts\`).

${coverageTable(m)}${
    wide
      ? `

The rounds' spread is wide: the machine is shared and was loaded (load average at the end ${load}), so a
round's pair can differ by more than coverage costs; the medians of alternated rounds are the figures to read.`
      : ""
  }`;
}

/** The section of docs/benchmarks.md: `load` is the load average at the end, as /proc/loadavg says it. */
export function conformanceMarkdown(r: ConformanceResults, load: string): string {
  const { json, small, mixed, jsonEntries, smallEntries, entries, first, memory } = r;
  const { byCheck, sameVerdicts } = mixed;
  const SMALL_LINE_BYTES = r.smallLineBytes;
  const { big, hars, lines: BIG_LINES } = memory;
  const firstRuns = first.runs;
  const { npx } = first;
  const prismFirst = first.prism;
  const cliFirst = median(first.times.cli);
  const binFirst = median(first.times.bin);
  const npmFirst = median(first.times.npmRun);
  const bare = median(first.times.bare);
  const rssAt = (fraction: number) =>
    big.samples[Math.min(big.samples.length - 1, Math.floor(big.samples.length * fraction))]?.rssMb ??
    Number.NaN;
  const disagreements = [
    ...disagreementRows(json, "JSON-only"),
    ...disagreementRows(small, "small lines"),
    ...disagreementRows(mixed, "mixed"),
  ];
  const targets = targetsOf(r);
  return `${opening(r, load)}

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
${binFirst.toFixed(0)} ms (${spread(first.times.bin)}); \`node dist/conformance/cli.js\` ${cliFirst.toFixed(0)} ms
(${spread(first.times.cli)}); \`npm run -s conformance\` (compiled CLI, dist up to date) ${npmFirst.toFixed(0)} ms (${spread(first.times.npmRun)}); bare node
${bare.toFixed(0)} ms (${spread(first.times.bare)}); \`npx --no-install idv-conformance\` ${median(npx).toFixed(0)} ms — npm's own start,
the CLI inside it is the compiled one; Prism (router and validators loaded, first verdict) ${prismFirst.toFixed(0)} ms.

**Memory.** NDJSON: ${fmt(BIG_LINES)} lines in ${big.seconds.toFixed(0)} s (${fmt(BIG_LINES / big.seconds)}
exchanges/s end to end), RSS ${rssAt(0.1).toFixed(0)} MB at 10 % of the run, ${rssAt(0.5).toFixed(0)} MB at 50 %,
${rssAt(0.95).toFixed(0)} MB at 95 %, peak ${big.peakMb.toFixed(0)} MB. HAR, read as a stream: ${hars
    .map(
      (h) =>
        `${h.mb} MB (${fmt(h.entries)} entries) in ${h.seconds.toFixed(0)} s, peak RSS ${h.peakMb.toFixed(0)} MB`,
    )
    .join("; ")}.

${coverageParagraph(r.coverage, load)}

| Target | Met | Measured |
|---|---|---|
${targets.map(([name, met, value]) => `| ${name} | ${met ? "yes" : "**no**"} | ${value} |`).join("\n")}
`;
}
