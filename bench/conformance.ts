// npm run bench: idv-conformance (both library entry points) beside Prism's validator
// (@stoplight/prism-http) on a corpus made without the suite, in the same run: exchanges per CPU second
// cold and warm, verdict agreement with every disagreement listed, time to first verdict paired with a bare
// node, and memory on large NDJSON and HAR files. Writes its section of docs/benchmarks.md.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildValidatorsModule } from "../scripts/build-conformance.js";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { compileForBench } from "./compile.js";
import { buildIndependentCorpus, type IndependentEntry } from "./corpus-independent.js";

const CORPUS_SIZE = Number(process.env.CONFORMANCE_BENCH_SIZE ?? 10_000);
const ROUNDS = Math.max(5, Number(process.env.CONFORMANCE_BENCH_ROUNDS ?? 5));
const BIG_LINES = Number(process.env.CONFORMANCE_BENCH_BIG_LINES ?? 300_000);
/** HAR sizes for the memory runs, in MB: the issue's 70 MB, and a larger one to show memory stays flat. */
const HAR_MB = (process.env.CONFORMANCE_BENCH_HAR_MB ?? "70,1024").split(",").map(Number);
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

type Side = "create" | "open" | "prism";
const SIDES: Side[] = ["create", "open", "prism"];
const SIDE_NAMES: Record<Side, string> = {
  create: "`createConformanceChecker`",
  open: "`openConformanceChecker` (the CLI's)",
  prism: "Prism's validator",
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

/** A corpus line (NDJSON) as a HAR 1.2 entry, for the streaming-memory runs. */
function harEntry(line: string): string {
  const x = JSON.parse(line);
  const content = (m: {
    body?: string;
    bodyEncoding?: string;
    headers?: { name: string; value: string }[];
  }) => ({
    size: m.body === undefined ? 0 : m.body.length,
    mimeType: m.headers?.find((h) => h.name.toLowerCase() === "content-type")?.value ?? "",
    ...(m.body === undefined ? {} : { text: m.body }),
    ...(m.bodyEncoding ? { encoding: m.bodyEncoding } : {}),
  });
  const request = x.request;
  return JSON.stringify({
    startedDateTime: "2026-11-22T09:30:00.000Z",
    time: 12,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: "HTTP/1.1",
      headers: request.headers,
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: request.body?.length ?? 0,
      ...(request.body === undefined ? {} : { postData: content(request) }),
    },
    response: x.response
      ? {
          status: x.response.status,
          statusText: "",
          httpVersion: "HTTP/1.1",
          headers: x.response.headers,
          cookies: [],
          content: content(x.response),
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        }
      : {
          status: 0,
          statusText: "",
          httpVersion: "",
          headers: [],
          cookies: [],
          content: { size: 0, mimeType: "" },
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        },
    cache: {},
    timings: { send: 0, wait: 12, receive: 0 },
  });
}

/** Write a HAR of about `bytes` bytes from the corpus lines, streaming. */
async function writeHar(file: string, lines: string[], bytes: number): Promise<number> {
  const out = createWriteStream(file);
  const entries = lines.map(harEntry);
  out.write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[\n');
  let written = 0;
  let n = 0;
  while (written < bytes) {
    const entry = `${n === 0 ? "" : ",\n"}${entries[n % entries.length]}`;
    written += entry.length;
    n++;
    if (!out.write(entry)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end("\n]}}\n", () => r()));
  return n;
}

const spread = (values: number[], digits = 0): string =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
/** A count or rate rounded, with thousands separators. */
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

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

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "idv-bench-conformance-"));
  try {
    log("compiling");
    const dist = compile(dir);
    log(`building an independent corpus of ${CORPUS_SIZE} exchanges (json-schema-faker, seed 14)`);
    const { entries, stats } = buildIndependentCorpus(spec, CORPUS_SIZE, 14);
    const lines = entries.map((e) => e.line);
    const corpusFile = join(dir, "corpus.ndjson");
    writeFileSync(corpusFile, `${lines.join("\n")}\n`);
    const oneFile = join(dir, "one.ndjson");
    writeFileSync(oneFile, `${entries.find((e) => e.mutation === undefined)?.line}\n`);

    // Rotate the order each round: the machine is shared and its load changes.
    const runs: Record<Side, ChildReport[]> = { create: [], open: [], prism: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order = [...SIDES.slice(r % 3), ...SIDES.slice(0, r % 3)];
      log(`round ${r + 1}/${ROUNDS}: ${order.join(", ")}`);
      for (const side of order) runs[side].push(child(dist, side, corpusFile));
    }
    const measured = {
      create: rates(runs.create),
      open: rates(runs.open),
      prism: rates(runs.prism),
    };
    const agree = {
      create: agreement(runs.create[0] as ChildReport, entries),
      open: agreement(runs.open[0] as ChildReport, entries),
      prism: agreement(runs.prism[0] as ChildReport, entries),
    };
    const byCheck = wrongCheck(runs.open[0] as ChildReport, entries);
    // The two library entry points must give the same verdicts, run after run.
    const sameVerdicts = runs.create.every((r, i) =>
      r.verdicts.every((v, j) => v.ok === runs.open[i]?.verdicts[j]?.ok),
    );

    log("time to first verdict, paired with node -e");
    const node = process.execPath;
    const firstRuns = 9;
    const first = await paired(
      {
        bare: { cmd: node, args: ["-e", "console.log(1)"] },
        cli: { cmd: node, args: [join(dist, "conformance/cli.js"), "check", oneFile, "--format", "json"] },
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

    const ratio = (side: "create" | "open", key: "warm" | "cold") =>
      measured[side][key] / measured.prism[key];
    const cliFirst = median(first.cli as number[]);
    const npmFirst = median(first.npmRun as number[]);
    const bare = median(first.bare as number[]);
    const mutatedCount = [...stats.mutated.values()].reduce((a, b) => a + b, 0);
    const dropped = [...stats.dropped.entries()].map(([k, v]) => `${k} ${v}`).join(", ");
    const disagreementRows = (Object.keys(agree) as Side[]).flatMap((side) =>
      [...agree[side].disagreements.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([what, n]) => `| ${SIDE_NAMES[side]} | ${what} | ${n} |`),
    );
    const targets = [
      [
        "≥ 15× Prism warm (createConformanceChecker / openConformanceChecker)",
        ratio("create", "warm") >= 15 && ratio("open", "warm") >= 15,
        `${ratio("create", "warm").toFixed(1)}× / ${ratio("open", "warm").toFixed(1)}×`,
      ],
      [
        "≥ 12× Prism cold",
        ratio("create", "cold") >= 12 && ratio("open", "cold") >= 12,
        `${ratio("create", "cold").toFixed(1)}× / ${ratio("open", "cold").toFixed(1)}×`,
      ],
      [
        "every verdict right by the contract",
        agree.create.right === entries.length && agree.open.right === entries.length,
        `${agree.create.right} / ${agree.open.right} of ${entries.length}`,
      ],
      [
        "first verdict ≤ 300 ms wall, `node dist/conformance/cli.js`",
        cliFirst <= 300,
        `${cliFirst.toFixed(0)} ms (node -e: ${bare.toFixed(0)} ms)`,
      ],
      ["first verdict ≤ 300 ms wall, `npm run conformance`", npmFirst <= 300, `${npmFirst.toFixed(0)} ms`],
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

**Corpus**, made without the suite (\`bench/corpus-independent.ts\`): ${fmt(entries.length)} exchanges over every
operation, bodies from the schemas (json-schema-faker 0.6.3, seeded; ${fmt(stats.fromFaker)} values) and the
contract's examples (${fmt(stats.fromExamples)}), header names in Canonical-Case, lower and upper case beside
the headers clients and servers add, absolute URLs on three origins with query strings, PDF, ZIP and multipart
bodies as base64, documented error statuses now and then. ${fmt(mutatedCount)} exchanges carry one of
${stats.mutated.size} mutations (${[...stats.mutated.entries()].map(([k, v]) => `${k} ${v}`).join(", ")}). Every label —
valid or not — was confirmed by a reference validator written inside the bench (\`bench/corpus-reference.ts\`:
ajv 2020 compiling the bundled schemas, plain routing and header rules; nothing shared with the suite);
samples it did not confirm were dropped (${dropped || "none"}).

**Method.** Each side runs in its own process, compiled (tsc), reading the same NDJSON lines:
\`createConformanceChecker\` (ajv compiles each validator on first use), \`openConformanceChecker\` (the CLI's:
validators generated at build time) and Prism's validator (\`@stoplight/prism-http\` 5.12.0 router +
\`validateSecurity\`, \`validateInput\`, \`validateOutput\`, the line parsed and the body JSON-parsed for it).
Rates are exchanges per CPU second (user + system). **Cold**: from process start (Node, modules, the contract,
every validator's first use) to the end of the first pass; **warm**: a second pass. ${ROUNDS} rounds, the order
of the sides rotated each round; medians, with the range of the rounds. Measured
${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load average at the end ${load} on a shared 2-core machine.

| | \`createConformanceChecker\` | \`openConformanceChecker\` | Prism's validator |
|---|---|---|---|
| Exchanges/CPU s, cold (median; range) | ${fmt(measured.create.cold)} (${measured.create.coldSpread}) | ${fmt(measured.open.cold)} (${measured.open.coldSpread}) | ${fmt(measured.prism.cold)} (${measured.prism.coldSpread}) |
| Exchanges/CPU s, warm (median; range) | ${fmt(measured.create.warm)} (${measured.create.warmSpread}) | ${fmt(measured.open.warm)} (${measured.open.warmSpread}) | ${fmt(measured.prism.warm)} (${measured.prism.warmSpread}) |
| Ratio to Prism, cold / warm | ${ratio("create", "cold").toFixed(1)}× / ${ratio("create", "warm").toFixed(1)}× | ${ratio("open", "cold").toFixed(1)}× / ${ratio("open", "warm").toFixed(1)}× | 1× |
| Peak RSS (corpus held in memory, median) | ${measured.create.rss.toFixed(0)} MB | ${measured.open.rss.toFixed(0)} MB | ${measured.prism.rss.toFixed(0)} MB |
| Verdicts agreeing with the labels | ${agree.create.right} / ${entries.length} | ${agree.open.right} / ${entries.length} | ${agree.prism.right} / ${entries.length} |

The two entry points gave ${sameVerdicts ? "the same verdict on every exchange in every round" : "**different verdicts** on some exchanges"}.
Of the mutated exchanges ours refused, ${fmt(byCheck.hits)} of ${fmt(byCheck.of)} were refused by the check the mutation
targets${byCheck.misses.size === 0 ? "." : ` (${[...byCheck.misses.entries()].map(([k, n]) => `${k}: ${n}`).join("; ")}).`}
${
  disagreementRows.length === 0
    ? "No disagreement with the labels.\n"
    : `
Every disagreement with the labels, by side, by what the exchange was and what the side said:

| Side | Label → verdict | Exchanges |
|---|---|---|
${disagreementRows.join("\n")}
`
}
**First verdict** (one exchange, \`--format json\`, spawn to first line, ${firstRuns} runs alternated with a bare
\`node -e "console.log(1)"\`; medians, range): \`node dist/conformance/cli.js\` ${cliFirst.toFixed(0)} ms
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
