// npm run bench:binaries: the single executables' start beside the npm bins', side by side in one
// run, rounds interleaved. The sandbox's first answer: from spawn until its first HTTP answer (the
// control API's clock, asked as soon as it prints its URL). idv-conformance's: from spawn until
// `check` of a small recording has printed its report and exited. Each executable runs alone in an
// empty folder with no node on PATH; the npm bins run from dist/ with this node.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { NODE_VERSION } from "../scripts/binaries/node-binaries.js";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import {
  aloneInFolder,
  buildBinaries,
  nodelessEnv,
  runAsync,
  startSandbox,
  stop,
} from "../test/package/support/binaries.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const RECORDING = fromRoot("test/conformance/fixtures/conforming.har");

/** Milliseconds from spawn to the sandbox's first HTTP answer. */
async function sandboxFirstAnswer(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const sandbox = await startSandbox(command, [...args, "--port", "0", "--key", "k", "--secret", "s"], env);
  const answer = await fetch(`${sandbox.first.url}/_sandbox/clock`);
  await answer.arrayBuffer();
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`the sandbox answered ${answer.status}`);
  await stop(sandbox.child);
  return ms;
}

/** Milliseconds from spawn to the end of `check` on the small recording. */
async function checkRun(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const result = await runAsync(command, [...args, "check", RECORDING], env);
  const ms = performance.now() - started;
  if (result.code !== 0) throw new Error(`check exited ${result.code}: ${result.stderr}`);
  return ms;
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const ms = (n: number): string => n.toFixed(0);

const out = mkdtempSync(join(tmpdir(), "idv-bench-binaries-"));
const built = buildBinaries(out);
const binary = {
  sandbox: aloneInFolder(built["idv-sandbox"]),
  conformance: aloneInFolder(built["idv-conformance"]),
};
const nodeless = nodelessEnv();
const cases = [
  {
    name: "idv-sandbox: first answer",
    npm: () => sandboxFirstAnswer(process.execPath, [fromRoot("dist/sandbox/cli.js")], process.env),
    exe: () => sandboxFirstAnswer(binary.sandbox, [], nodeless),
  },
  {
    name: "idv-conformance check (4 exchanges)",
    npm: () => checkRun(process.execPath, [fromRoot("dist/conformance/cli.js")], process.env),
    exe: () => checkRun(binary.conformance, [], nodeless),
  },
];

const rows: string[] = [];
for (const c of cases) {
  const npm: number[] = [];
  const exe: number[] = [];
  // One warm-up each (the page cache), then the rounds, alternating which goes first.
  await c.npm();
  await c.exe();
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      npm.push(await c.npm());
      exe.push(await c.exe());
    } else {
      exe.push(await c.exe());
      npm.push(await c.npm());
    }
  }
  const ratio = median(exe) / median(npm);
  const spread = (v: number[]) =>
    `${ms(quantile(v, 0.25))}–${ms(quantile(v, 0.75))} (${ms(Math.min(...v))}–${ms(Math.max(...v))})`;
  rows.push(
    `| ${c.name} | ${ms(median(npm))} | ${spread(npm)} | ${ms(median(exe))} | ${spread(exe)} | ${ratio.toFixed(2)}× | ${ratio <= 2 ? "yes" : "**no**"} |`,
  );
  console.log(rows.at(-1));
}
rmSync(out, { recursive: true, force: true });

writeBenchSection(
  "binaries",
  `## Single executables: start-up beside the npm bins (\`npm run bench:binaries\`)

The linux-x64 single executables (\`npm run build:binaries\`, Node ${NODE_VERSION} inside), each alone in
an empty folder and run with no node on PATH, beside the npm bins (\`node dist/…/cli.js\`, Node ${process.versions.node}), ${ROUNDS}
rounds each, interleaved, after one warm-up. The sandbox's first answer is the time from spawn until
its first HTTP answer (the control API's clock, asked as soon as it prints its URL);
idv-conformance's is the time from spawn until \`check\` of a 4-exchange recording has exited. Milliseconds:
median, the middle half (p25–p75) and the whole range (min–max). The bound is 2× the npm bin's median.

| Start | npm bin median | npm bin spread | executable median | executable spread | ratio | within 2× |
|---|---:|---|---:|---|---:|---|
${rows.join("\n")}
`,
);
console.log("wrote the binaries section of docs/benchmarks.md");
