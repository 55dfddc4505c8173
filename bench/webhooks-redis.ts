// npm run bench:webhooks-redis — the README's receiver with each deduper store: in memory, and
// RedisDedupeStore through node-redis and through ioredis, on a redis-server of its own (loopback,
// no persistence). Each receiver is compiled and runs in a process of its own, as users run it.
// Deliveries are the contract's example deliveries of every channel, each made distinct (its own
// transaction_id, or X-Workflow-Webhook-Id), so that every one is new and claimed.
//   Throughput: autocannon, --connections at once, --seconds per store and round.
//   Latency: one delivery at a time over a kept-alive connection, --sequential of them, timed with
//   hrtime from the request to the end of its answer; the added latency is a Redis store's median
//   and p99 minus the in-memory store's, in the same round.
// Stores take turns in rotated order; medians of --rounds rounds (min–max). Writes its section of
// docs/benchmarks.md.
//   npm run bench:webhooks-redis [-- --rounds 5 --seconds 5 --connections 10 --sequential 2000]
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { TestRedis } from "../test/support/redis-server.js";
import { exampleDeliveries } from "../test/webhooks/deliveries.js";
import { compileForBench } from "./compile.js";
import { stop } from "./processes.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    sequential: { type: "string", default: "2000" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const SEQUENTIAL = Number(values.sequential);
const STORES = ["memory", "node-redis", "ioredis"] as const;
type Store = (typeof STORES)[number];
const TOKEN = "bench-webhooks-redis-token";
const WORKFLOW_PATH = "/cases/bench";
const log = (line: string) => process.stderr.write(`${line}\n`);

// Templates of every example delivery, with a placeholder where the distinct id goes.
const PLACEHOLDER = "__bench_id__";
const templates = exampleDeliveries().map((d) => {
  const workflow = d.channel === "workflowCase";
  return {
    path: workflow ? WORKFLOW_PATH : "/idv/events",
    headers: {
      ...d.headers,
      ...(workflow ? { "X-Workflow-Webhook-Id": PLACEHOLDER } : { Authorization: `Bearer ${TOKEN}` }),
    },
    body: workflow ? d.body : JSON.stringify({ ...(d.payload as object), transaction_id: PLACEHOLDER }),
    workflow,
  };
});
let sequence = 0;
/** The next delivery, new to every store: example deliveries in turn, each with an id of its own. */
function nextDelivery(): { path: string; headers: Record<string, string>; body: string } {
  const t = templates[sequence % templates.length]!;
  const id = `bench-${process.pid}-${sequence++}`;
  if (t.workflow)
    return { path: t.path, headers: { ...t.headers, "X-Workflow-Webhook-Id": id }, body: t.body };
  return { path: t.path, headers: t.headers, body: t.body.replace(PLACEHOLDER, id) };
}

interface Receiver {
  child: ChildProcess;
  port: number;
  handled: () => Promise<number>;
}

async function startReceiver(child: string, store: Store, redisPort: number): Promise<Receiver> {
  const proc = spawn(process.execPath, [child, store, String(redisPort), TOKEN], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout! });
  let handledLine: (n: number) => void = () => {};
  const handled = new Promise<number>((resolve) => (handledLine = resolve));
  const port = await new Promise<number>((resolve, reject) => {
    lines.on("line", (line) => {
      const [word, value] = line.split(" ");
      if (word === "listening") resolve(Number(value));
      if (word === "handled") handledLine(Number(value));
    });
    proc.once("exit", (code) => reject(new Error(`${store} receiver exited (${code})`)));
  });
  return {
    child: proc,
    port,
    handled: async () => {
      await stop(proc);
      return handled;
    },
  };
}

/** Deliveries per second through one receiver; throws on any answer but 200. */
async function throughput(port: number): Promise<{ perSecond: number; ok: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    method: "POST",
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, ...nextDelivery() }) }],
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
    throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { perSecond: result.requests.average, ok: result["2xx"] };
}

/** Microseconds of each of `count` deliveries sent one at a time. */
async function latencies(port: number, count: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const d = nextDelivery();
      const started = process.hrtime.bigint();
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port, method: "POST", path: d.path, headers: d.headers, agent },
          (res) => res.resume().on("end", () => resolve(res.statusCode ?? 0)),
        );
        req.on("error", reject);
        req.end(d.body);
      });
      times.push(Number(process.hrtime.bigint() - started) / 1_000);
      if (status !== 200) throw new Error(`a delivery was answered ${status}`);
    }
  } finally {
    agent.destroy();
  }
  return times;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const dir = mkdtempSync(join(tmpdir(), "idv-bench-webhooks-redis-"));
const redis = await TestRedis.start();
try {
  const { out, problems } = compileForBench(
    dir,
    { files: [fromRoot("bench/webhooks-redis-child.ts")] },
    { noCheck: true },
  );
  if (problems) throw new Error(`tsc failed:\n${problems}`);
  const child = join(out, "bench/webhooks-redis-child.js");
  const perSecond = new Map<Store, number[]>(STORES.map((s) => [s, []]));
  const p50 = new Map<Store, number[]>(STORES.map((s) => [s, []]));
  const p99 = new Map<Store, number[]>(STORES.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = STORES.map((_, i) => STORES[(i + round) % STORES.length]!);
    for (const store of order) {
      const receiver = await startReceiver(child, store, redis.port);
      // A short warm-up (JIT, connections), not counted.
      await latencies(receiver.port, 200);
      const { perSecond: rate, ok } = await throughput(receiver.port);
      const times = (await latencies(receiver.port, SEQUENTIAL)).sort((a, b) => a - b);
      const handled = await receiver.handled();
      // Every delivery is distinct: each one acknowledged must have been processed, once.
      if (handled < ok + SEQUENTIAL + 200)
        throw new Error(
          `${store}: ${handled} processed, fewer than the ${ok + SEQUENTIAL + 200} acknowledged`,
        );
      perSecond.get(store)!.push(rate);
      p50.get(store)!.push(percentile(times, 50));
      p99.get(store)!.push(percentile(times, 99));
      log(
        `round ${round + 1} ${store}: ${Math.round(rate)}/s, p50 ${percentile(times, 50).toFixed(0)} µs, p99 ${percentile(times, 99).toFixed(0)} µs`,
      );
    }
  }
  const cell = (sample: number[], digits = 0) =>
    `${median(sample).toFixed(digits)} (${Math.min(...sample).toFixed(digits)}–${Math.max(...sample).toFixed(digits)})`;
  /** The store's value minus the in-memory store's, round by round. */
  const added = (by: Map<Store, number[]>, store: Store) =>
    by.get(store)!.map((v, i) => v - by.get("memory")![i]!);
  const row = (store: Store, name: string) =>
    `| ${name} | ${cell(perSecond.get(store)!)} | ${cell(p50.get(store)!)} | ${cell(p99.get(store)!)} | ${store === "memory" ? "–" : cell(added(p50, store))} | ${store === "memory" ? "–" : cell(added(p99, store))} |`;
  writeBenchSection(
    "webhooks-redis",
    `## Webhook receiver with each deduper store (\`npm run bench:webhooks-redis\`)

The README's receiver (\`examples/webhook-receiver.ts\`), compiled, one process per store, fed the
contract's example deliveries of every channel, each made new (its own \`transaction_id\` or
\`X-Workflow-Webhook-Id\`), so that each is claimed and processed. \`RedisDedupeStore\` sends two
commands per new delivery (\`SET … NX PX\` pending, then \`SET … XX PX\` done) to a local
redis-server (loopback, no persistence) with the client options of docs/webhooks.md.
Throughput: autocannon, ${CONNECTIONS} connections, ${SECONDS} s per store and round.
Latency: ${SEQUENTIAL.toLocaleString("en")} deliveries one at a time over a kept-alive connection,
from sending the request to the end of its answer (the receiver answers once the delivery is
recorded); the added latency is the store's figure minus the in-memory store's in the same round.
Median of ${ROUNDS} round${ROUNDS === 1 ? "" : "s"} in rotated order (min–max). The receivers,
Redis and the load generator share the machine's cores. Measured
${new Date().toISOString().slice(0, 10)}, Node ${process.version}, redis-server ${redisVersion()}.

| Store | Deliveries/s | p50 latency (µs) | p99 latency (µs) | Added p50 (µs) | Added p99 (µs) |
|---|---|---|---|---|---|
${row("memory", "in memory (default)")}
${row("node-redis", "Redis, node-redis client")}
${row("ioredis", "Redis, ioredis client")}`,
  );
  log("wrote the webhooks-redis section of docs/benchmarks.md");
} finally {
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}

function redisVersion(): string {
  const version = /v=(\S+)/.exec(execFileSync("redis-server", ["--version"], { encoding: "utf8" }))?.[1];
  return version ?? "(version unknown)";
}
