// npm run bench:coverage: what --coverage adds to `idv-conformance check`'s CPU time, on the bench's
// corpus (bench/conformance.ts: 5,000 exchanges made without the suite, seed 14). Each side runs in a
// process of its own, rounds alternating; the time counted is the checker's opening, every exchange
// checked, and (with coverage) the report made: what the CLI adds to reading the file.
//   tsx bench/conformance-coverage.ts                     → the table, on stdout
//   tsx bench/conformance-coverage.ts child plain|coverage CORPUS → one JSON line: CPU ms
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CORPUS_SIZE = Number(process.env.CONFORMANCE_BENCH_SIZE ?? 5_000);
const ROUNDS = Math.max(3, Number(process.env.CONFORMANCE_BENCH_ROUNDS ?? 7));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

async function child(mode: "plain" | "coverage", corpus: string): Promise<void> {
  const lines = readFileSync(corpus, "utf8").split("\n").filter(Boolean);
  const { openConformanceChecker, exchangeFromNdjson } = await import("../conformance/index.js");
  const { SeenLocations } = await import("../conformance/coverage/seen.js");
  // Loaded before the clock starts: from source, tsx's compiling them would be counted (the whole-process
  // rows, from dist/, count their loading).
  const { reportOf } = await import("../conformance/coverage/coverage-run.js");
  await import("../conformance/coverage/http-coverage.js");
  await import("../conformance/coverage/universe.js");
  const exchanges = lines.map((line, i) => exchangeFromNdjson(JSON.parse(line), i, i + 1));
  const start = process.cpuUsage();
  const seen = mode === "coverage" ? new SeenLocations() : undefined;
  const checker = await openConformanceChecker({ coverage: seen });
  let failed = 0;
  for (const exchange of exchanges) if (!checker.checkExchange(exchange).ok) failed++;
  if (seen) await reportOf({ command: "check" }, seen);
  const used = process.cpuUsage(start);
  process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, failed })}\n`);
}

async function main(): Promise<void> {
  const { buildIndependentCorpus } = await import("./corpus-independent.js");
  const spec = JSON.parse(readFileSync(new URL("../generated/openapi.json", import.meta.url), "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "idv-bench-coverage-"));
  try {
    const corpus = join(dir, "corpus.ndjson");
    const { entries } = buildIndependentCorpus(spec, 2 * CORPUS_SIZE, 14);
    writeFileSync(
      corpus,
      `${entries
        .slice(0, CORPUS_SIZE)
        .map((e) => e.line)
        .join("\n")}\n`,
    );
    const times: Record<string, number[]> = { plain: [], coverage: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const mode of round % 2 === 0 ? ["plain", "coverage"] : ["coverage", "plain"]) {
        const run = spawnSync(
          process.execPath,
          ["--import", "tsx", fileURLToPath(import.meta.url), "child", mode, corpus],
          { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
        );
        if (run.status !== 0) throw new Error(`${mode} child failed: ${run.stderr}`);
        times[mode]!.push(JSON.parse(run.stdout).cpuMs);
      }
    const plain = median(times.plain!);
    const coverage = median(times.coverage!);
    process.stdout.write(
      `| ${CORPUS_SIZE.toLocaleString("en-US")} exchanges, median of ${ROUNDS} | CPU ms |\n|---|---|\n` +
        `| \`check\` | ${plain.toFixed(0)} |\n| \`check --coverage\` | ${coverage.toFixed(0)} (+${((coverage / plain - 1) * 100).toFixed(1)} %) |\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "child")
  await child(process.argv[3] === "coverage" ? "coverage" : "plain", process.argv[4] as string);
else await main();
