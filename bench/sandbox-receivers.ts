// Part of `npm run bench:sandbox` (alone: `npx tsx bench/sandbox-receivers.ts`): how long an advance
// takes with receivers that hang, answer slowly, or refuse a backlog, against the compiled sandbox
// as `npm run sandbox` starts it, the receivers in a process of their own. Each row is the median
// of its rounds with their spread, beside the bound docs/sandbox.md states, and how many deliveries
// the answer listed as still in flight. Writes its section of docs/benchmarks.md.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { ROOT } from "../scripts/lib/paths.js";
import { QUIET_ENV } from "../scripts/lib/run-tool.js";
import { compilePackageTo, freePort, stop } from "./processes.js";

const ROUNDS = Number(process.env.SANDBOX_BENCH_RECEIVER_ROUNDS ?? 3);
const KEY = "bench-key";
const SECRET = "bench-secret";
/** The attempt deadline the rows run with: the sandbox's default. */
const DEADLINE_MS = 10_000;

const OUT = "build/bench-sandbox-receivers";
compilePackageTo(OUT);

/** Receivers in one process: /hang never answers, /ok 204 at once, /slow 200 after 100 ms, /fail 500. */
async function startReceivers(): Promise<{ url: string; child: ChildProcess }> {
  const code = `require("node:http").createServer((q, r) => q.resume().on("end", () => {
  if (q.url.startsWith("/hang")) return;
  if (q.url.startsWith("/slow")) return setTimeout(() => r.end(), 100);
  r.writeHead(q.url.startsWith("/fail") ? 500 : 204).end();
})).listen(0, "127.0.0.1", function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}`, child };
}

/** The compiled sandbox on a free port, once it answers. */
async function startSandbox(): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const args = [`${OUT}/sandbox/cli.js`, "--port", String(port), "--key", KEY, "--secret", SECRET];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: QUIET_ENV, stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      await (await fetch(`${base}/_sandbox/clock`)).arrayBuffer();
      return { base, child };
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json() as Promise<{ in_flight?: { count: number } }>;
};

interface Case {
  name: string;
  receivers: string[];
  verifications: number;
  lastname: string;
  duration: string;
}

/** One round: a fresh sandbox, the receivers and verifications, then the advance timed. */
async function round(sink: string, c: Case): Promise<{ ms: number; inFlight: number }> {
  const sandbox = await startSandbox();
  try {
    for (const path of c.receivers)
      await post(`${sandbox.base}/_sandbox/receivers`, { url: `${sink}${path}` });
    const v2 = { "svc-api-key": KEY, "svc-secret": SECRET };
    for (let i = 0; i < c.verifications; i++)
      await post(`${sandbox.base}/api/v2/send_text`, { reference: `bench-${i}`, lastname: c.lastname }, v2);
    const t0 = performance.now();
    const answer = await post(`${sandbox.base}/_sandbox/clock/advance`, { duration: c.duration });
    return { ms: performance.now() - t0, inFlight: answer.in_flight?.count ?? 0 };
  } finally {
    await stop(sandbox.child);
  }
}

const SLOW_RECEIVERS = 10;
const BACKLOG_RECEIVERS = 100;
const CASES: Case[] = [
  {
    name: "3 × sandbox-pass, one receiver that never answers and one that answers at once, PT10M",
    receivers: ["/hang", "/ok"],
    verifications: 3,
    lastname: "sandbox-pass",
    duration: "PT10M",
  },
  {
    name: `50 × sandbox-pass, ${SLOW_RECEIVERS} receivers answering after 100 ms (1,000 deliveries), PT10M`,
    receivers: Array.from({ length: SLOW_RECEIVERS }, (_, i) => `/slow-${i}`),
    verifications: 50,
    lastname: "sandbox-pass",
    duration: "PT10M",
  },
  {
    name: `1,000 × sandbox-pending-error, ${BACKLOG_RECEIVERS} receivers answering 500, P7D`,
    receivers: Array.from({ length: BACKLOG_RECEIVERS }, (_, i) => `/fail-${i}`),
    verifications: 1000,
    lastname: "sandbox-pending-error",
    duration: "P7D",
  },
];

const sink = await startReceivers();
const rows: string[] = [];
try {
  for (const c of CASES) {
    const rounds: { ms: number; inFlight: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(sink.url, c));
    const s = rounds.map((r) => r.ms / 1000);
    const row = `| ${c.name} | ${median(s).toFixed(1)} (${Math.min(...s).toFixed(1)}–${Math.max(...s).toFixed(1)}) | ${median(rounds.map((r) => r.inFlight))} |`;
    console.log(row);
    rows.push(row);
  }
} finally {
  await stop(sink.child);
}

writeBenchSection(
  "sandbox-receivers",
  `### Advances with receivers that hang, answer slowly or refuse (\`npm run bench:sandbox\`)

The compiled sandbox (\`node …/sandbox/cli.js\`, as \`npm run sandbox\` starts it) over loopback, the
receivers in a process of their own, the attempt deadline at its default (${DEADLINE_MS / 1000} s). Each row: a fresh
sandbox, its receivers and verifications, then one \`POST /_sandbox/clock/advance\`, timed to its
answer; the median of ${ROUNDS} rounds (min–max), and the median count of deliveries the answer listed
in \`in_flight\`. The bound ([waiting for deliveries](sandbox.md#waiting-for-deliveries)): a receiver
whose attempt times out is waited for no more (one deadline, ${DEADLINE_MS / 1000} s), and once its timers have
run no advance waits more than three deadlines (${(3 * DEADLINE_MS) / 1000} s) in all: the backlog's row is that
wait plus the time its timers (a week of a thousand journeys and their retries) take to run.

| Advance | Seconds to its answer | Listed in \`in_flight\` |
|---|---|---|
${rows.join("\n")}

Measured before the bound was added (not in this run, so not a side-by-side figure): the first
row took 79 s, each attempt to the hung receiver waited for in turn, its retries included; the
third gave no answer in 200 s.`,
);
