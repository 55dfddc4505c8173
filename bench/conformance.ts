// npm run bench: idv-conformance beside Prism's validator (@stoplight/prism-http) on the same corpus,
// in the same run: exchanges per second on one core, time to first verdict, peak memory, every verdict
// checked; then flat memory on a 1,000,000-line NDJSON file. Writes its section of docs/benchmarks.md.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildValidatorsModule } from "../scripts/build-conformance.js";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { buildCorpus, type ExpectedVerdict, toNdjson } from "./corpus.js";

const CORPUS_SIZE = Math.max(10_000, Number(process.env.CONFORMANCE_BENCH_SIZE ?? 20_000));
const ROUNDS = 3;
const BIG_LINES = Number(process.env.CONFORMANCE_BENCH_BIG_LINES ?? 1_000_000);
const spec = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));

const log = (message: string) => process.stderr.write(`bench:conformance ${message}\n`);
const round = (n: number) => Math.round(n).toLocaleString("en-US");

/** Compile the conformance sources with the project's tsc settings, as `dist/` will hold them. */
function compile(dir: string): string {
  const out = join(dir, "dist");
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: fromRoot("tsconfig.json"),
      compilerOptions: {
        noEmit: false,
        outDir: out,
        rootDir: fromRoot(),
        typeRoots: [fromRoot("node_modules/@types")],
        types: ["node"],
      },
      include: [fromRoot("conformance/**/*.ts"), fromRoot("bench/conformance-child.ts")],
    }),
  );
  // The compiled files resolve packages and their module type from here.
  symlinkSync(fromRoot("node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "package.json"), '{"type":"module"}\n');
  const tsc = spawnSync(fromRoot("node_modules/.bin/tsc"), ["-p", join(dir, "tsconfig.json")], {
    encoding: "utf8",
  });
  if (tsc.status !== 0) log(`tsc reported type errors (output still emitted):\n${tsc.stdout}`);
  // tsc copies imported JSON but not JavaScript: the build-time validators are written beside it, fresh
  // from the contract being measured, as \`npm run build:conformance\` would write them.
  writeFileSync(join(out, "generated/conformance-validators.js"), buildValidatorsModule(spec));
  return out;
}

interface ChildReport {
  exchanges: number;
  coldRate: number;
  warmRate: number;
  maxRssMb: number;
  verdicts: { ok: boolean; checks: string[] }[];
}

function child(dist: string, mode: "ours" | "prism", corpus: string): ChildReport {
  const run = spawnSync(process.execPath, [join(dist, "bench/conformance-child.js"), mode, corpus], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${mode} child failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Milliseconds from spawn to the first line on stdout. */
function firstLine(command: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const proc = spawn(process.execPath, command, { stdio: ["ignore", "pipe", "ignore"] });
    let done = false;
    proc.stdout.on("data", (chunk: Buffer) => {
      if (!done && chunk.includes(10)) {
        done = true;
        resolve(performance.now() - start);
      }
    });
    proc.on("error", reject);
    proc.on("close", () => (done ? undefined : reject(new Error(`no output from ${command.join(" ")}`))));
  });
}

async function timeToFirstVerdict(command: string[], runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await firstLine(command));
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

/** The best rates and the highest memory of a side's rounds; verdicts of the first round. */
function best(reports: ChildReport[]): ChildReport {
  const [first] = reports as [ChildReport];
  return {
    ...first,
    coldRate: Math.max(...reports.map((r) => r.coldRate)),
    warmRate: Math.max(...reports.map((r) => r.warmRate)),
    maxRssMb: Math.max(...reports.map((r) => r.maxRssMb)),
  };
}

function judgeOurs(report: ChildReport, expected: ExpectedVerdict[]): { right: number; wrong: string[] } {
  const wrong: string[] = [];
  report.verdicts.forEach((v, i) => {
    const want = expected[i] as ExpectedVerdict;
    if (v.ok !== want.ok || (want.check !== undefined && !v.checks.includes(want.check))) {
      wrong.push(`#${i} ${want.mutation ?? "valid"}: got ${v.ok ? "ok" : v.checks.join(",")}`);
    }
  });
  return { right: report.verdicts.length - wrong.length, wrong };
}

async function writeLines(file: string, lines: string[], total: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < total; i++) {
    if (!out.write(`${lines[i % lines.length]}\n`)) await new Promise((r) => out.once("drain", r));
  }
  await new Promise<void>((r) => out.end(r));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "idv-bench-conformance-"));
  try {
    log("compiling");
    const dist = compile(dir);
    log(`building a corpus of ${CORPUS_SIZE} exchanges`);
    const corpus = buildCorpus(spec, CORPUS_SIZE);
    const expected = corpus.map((e) => e.expected);
    const lines = corpus.map((e) => toNdjson(e.exchange));
    const corpusFile = join(dir, "corpus.ndjson");
    writeFileSync(corpusFile, `${lines.join("\n")}\n`);
    const firstValid = lines[corpus.findIndex((e) => e.expected.ok && !e.expected.check)] as string;
    const oneFile = join(dir, "one.ndjson");
    writeFileSync(oneFile, `${firstValid}\n`);
    const invalid = expected.filter((e) => !e.ok).length;

    // Alternate the sides and keep each one's best round: the machine is shared, its load changes.
    const runs: Record<"ours" | "prism", ChildReport[]> = { ours: [], prism: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}: idv-conformance, then Prism's validator`);
      runs.ours.push(child(dist, "ours", corpusFile));
      runs.prism.push(child(dist, "prism", corpusFile));
    }
    const ours = best(runs.ours);
    const prism = best(runs.prism);
    const verdicts = judgeOurs(ours, expected);
    const prismRight = prism.verdicts.filter((v, i) => v.ok === expected[i]?.ok).length;

    log("time to first verdict");
    const oursFirst = await timeToFirstVerdict(
      [join(dist, "conformance/cli.js"), "check", oneFile, "--format", "json"],
      7,
    );
    const prismFirst = await timeToFirstVerdict(
      [join(dist, "bench/conformance-child.js"), "prism-first", oneFile],
      3,
    );
    const bareNode = await timeToFirstVerdict(["-e", "console.log(1)"], 7);

    log(`memory on a ${BIG_LINES}-line NDJSON file`);
    const bigFile = join(dir, "big.ndjson");
    await writeLines(bigFile, lines, BIG_LINES);
    const big = await memoryRun([
      join(dist, "conformance/cli.js"),
      "check",
      bigFile,
      "--out",
      join(dir, "big-report.txt"),
    ]);
    rmSync(bigFile, { force: true });
    const rssAt = (fraction: number) =>
      big.samples[Math.min(big.samples.length - 1, Math.floor(big.samples.length * fraction))]?.rssMb ??
      Number.NaN;
    const at = (fraction: number) => rssAt(fraction).toFixed(0);
    // Flat: no more than 50 MB of growth between the first tenth of the run and its end.
    const flat = rssAt(0.95) - rssAt(0.1) <= 50;

    const speedup = ours.warmRate / prism.warmRate;
    const targets = [
      ["≥ 50,000 exchanges/s on one core (warm)", ours.warmRate >= 50_000, `${round(ours.warmRate)}/s`],
      ["≥ 10× Prism's validator in the same run", speedup >= 10, `${speedup.toFixed(1)}×`],
      ["every verdict right", verdicts.wrong.length === 0, `${verdicts.right}/${ours.exchanges}`],
      ["first verdict ≤ 300 ms", oursFirst <= 300, `${oursFirst.toFixed(0)} ms`],
      [
        "flat memory on 1,000,000 lines",
        flat,
        `${at(0.1)} → ${at(0.95)} MB, peak ${big.peakMb.toFixed(0)} MB`,
      ],
    ] as const;
    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    const markdown = `## Conformance suite (\`npm run bench\`)

Corpus: ${round(CORPUS_SIZE)} exchanges built from the contract's examples (every operation, every documented
status), ${round(invalid)} of them broken by one known mutation (unknown route, missing credential, wrong
media type, schema violation, undocumented status, missing Content-Disposition, wrong error shape, …),
NDJSON as \`idv-conformance check\` reads it. Each side runs in its own process, compiled, on one core:
JSON.parse of the line, normalisation, every check; ${ROUNDS} rounds alternating the sides, the best
round's rates and the highest memory shown. "Cold" is the first pass (ours loads the validators
generated at build time, \`generated/conformance-validators.js\`, as the CLI does; Prism compiles its
own); "warm" is a second pass. Time to first verdict: the compiled CLI on a one-exchange file
(\`--format json\`), spawn to first line. Prism: \`@stoplight/prism-http\` 5.12.0 router + \`validateSecurity\`,
\`validateInput\`, \`validateOutput\`. Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
load average at the end ${load} on a shared 2-core machine.

| | idv-conformance | Prism's validator |
|---|---|---|
| Exchanges/s, cold pass | ${round(ours.coldRate)} | ${round(prism.coldRate)} |
| Exchanges/s, warm pass | ${round(ours.warmRate)} | ${round(prism.warmRate)} |
| Time to first verdict (spawn → first line, median) | ${oursFirst.toFixed(0)} ms | ${prismFirst.toFixed(0)} ms |
| Bare \`node -e "console.log(1)"\`, same machine (baseline) | ${bareNode.toFixed(0)} ms | ${bareNode.toFixed(0)} ms |
| Peak memory (RSS, corpus held in memory) | ${ours.maxRssMb.toFixed(0)} MB | ${prism.maxRssMb.toFixed(0)} MB |
| Verdicts matching the known ones | ${verdicts.right} / ${ours.exchanges} | ${prismRight} / ${prism.exchanges} (conforms or not) |

Flat memory: the CLI (\`check big.ndjson --out report.txt\`) streamed ${round(BIG_LINES)} lines in
${big.seconds.toFixed(0)} s (${round(BIG_LINES / big.seconds)} exchanges/s end to end, reading included); RSS
${at(0.1)} MB at 10 % of the run, ${at(0.5)} MB at 50 %, ${at(0.95)} MB at 95 %; peak ${big.peakMb.toFixed(0)} MB.

| Target | Met | Measured |
|---|---|---|
${targets.map(([name, met, value]) => `| ${name} | ${met ? "yes" : "**no**"} | ${value} |`).join("\n")}
${verdicts.wrong.length > 0 ? `\nWrong verdicts (first 10): ${verdicts.wrong.slice(0, 10).join("; ")}\n` : ""}`;
    writeBenchSection("conformance", markdown);
    process.stdout.write(`${markdown}\n`);
    if (verdicts.wrong.length > 0) process.exitCode = 1;
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
