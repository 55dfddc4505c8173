// npm run bench:sandbox: the compiled sandbox as `npm run sandbox` starts it, beside `prism mock` on
// the same contract in the same run. Start to first answered request (repeated starts, alternating),
// p50 and p99 at 10 and 100 connections on a valid POST (repeated rounds; the targets are at 10),
// what a thousand pending deliveries to a dead receiver cost the API, and the main flow in-process
// (createSandbox) beside the same over loopback (startSandbox). Writes its section of docs/benchmarks.md.
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import autocannon from "autocannon";
import { median, writeBenchSection } from "../scripts/lib/benchmarks-md.js";
import { fromRoot, ROOT } from "../scripts/lib/paths.js";
import { compilePackageTo, freePort, stop } from "./processes.js";
import { measureInProcess } from "./sandbox-in-process.js";
import { measureOnNodeLines } from "./sandbox-node-lines.js";
import { QUIET_ENV } from "../scripts/lib/run-tool.js";

const STARTS = Number(process.env.SANDBOX_BENCH_STARTS ?? 7);
const ROUNDS = Number(process.env.SANDBOX_BENCH_ROUNDS ?? 5);
/** Verifications created, receivers registered and rounds of the clock advance measurement. */
const VERIFICATIONS = Number(process.env.SANDBOX_BENCH_VERIFICATIONS ?? 2000);
const RECEIVERS = Number(process.env.SANDBOX_BENCH_RECEIVERS ?? 20);
const ADVANCE_ROUNDS = Number(process.env.SANDBOX_BENCH_ADVANCE_ROUNDS ?? 3);
/**
 * Creation alone: verifications created with no receiver and with the most a sandbox keeps, in turn,
 * by one client and by ten at once.
 */
const CREATE_VERIFICATIONS = Number(process.env.SANDBOX_BENCH_CREATE_VERIFICATIONS ?? 10_000);
const CREATE_RECEIVERS = [0, 100];
const CREATE_CLIENTS = [1, 10];
const CREATE_ROUNDS = Number(process.env.SANDBOX_BENCH_CREATE_ROUNDS ?? 3);
const SECONDS = 5;
/** Connections of the load: 10 (the target's), and 100 reported beside it. */
const CONNECTION_COUNTS = [10, 100];
const BACKLOG = 1000;
const KEY = "bench-key";
const SECRET = "bench-secret";

// The package's own build (tsconfig.build.json, as `npm run build` compiles it), into a folder of the
// benchmark's own: dist/ is rebuilt by other commands, and a run must not lose its server midway.
const OUT = "build/bench-sandbox";
compilePackageTo(OUT);

// The request body is the contract's own example of the operation, not one written for the sandbox.
const contract = JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));
const examples = contract.paths["/api/v4/pep_checks"].post.requestBody.content["application/json"].examples;
const firstExample = Object.values<{ $ref: string }>(examples)[0]?.$ref.split("/").pop() as string;
const body = JSON.stringify(contract.components.examples[firstExample].value);
const date = "2026-11-22T09:30:00.000Z";
const headers = {
  "svc-api-key": KEY,
  "svc-date": date,
  "svc-signature": createHmac("sha256", SECRET).update(date).update(body).digest("hex"),
  "content-type": "application/json",
};

interface Peer {
  name: string;
  command: (port: number, extra?: string[]) => [string, string[]];
}

const sandbox: Peer = {
  name: "sandbox (node …/sandbox/cli.js, compiled)",
  command: (p, extra = []) => [
    process.execPath,
    [`${OUT}/sandbox/cli.js`, "--port", String(p), "--key", KEY, "--secret", SECRET, ...extra],
  ],
};
const prism: Peer = {
  name: "prism mock generated/openapi.json",
  command: (p) => [
    fromRoot("node_modules/.bin/prism"),
    ["mock", "generated/openapi.json", "-p", String(p), "-h", "127.0.0.1"],
  ],
};

/** Spawn a server and time until it answers a POST (any status): start to first answered request. */
async function start(
  peer: Peer,
  extra?: string[],
): Promise<{ child: ChildProcess; port: number; ms: number }> {
  const port = await freePort();
  const [bin, args] = peer.command(port, extra);
  const t0 = performance.now();
  const child = spawn(bin, args, { cwd: ROOT, env: QUIET_ENV, stdio: ["ignore", "ignore", "pipe"] });
  let exited = false;
  child.once("exit", () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${peer.name} exited before answering`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v4/pep_checks`, {
        method: "POST",
        headers,
        body,
      });
      await res.arrayBuffer();
      return { child, port, ms: performance.now() - t0 };
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

const load = (port: number, connections: number) =>
  autocannon({
    url: `http://127.0.0.1:${port}/api/v4/pep_checks`,
    method: "POST",
    headers,
    body,
    connections,
    duration: SECONDS,
  });

const spread = (xs: number[]) =>
  `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`;
const spread1 = (xs: number[]) => `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`;

// Start-up, alternating the two so that both see the same machine state.
const startups = new Map<Peer, number[]>([
  [sandbox, []],
  [prism, []],
]);
for (let i = 0; i < STARTS; i++) {
  for (const peer of [sandbox, prism]) {
    const s = await start(peer);
    startups.get(peer)?.push(s.ms);
    await stop(s.child);
  }
}
for (const [peer, xs] of startups) console.log(`${peer.name}: start to first answer ${spread(xs)} ms`);

/** A thousand verifications; with a dead receiver their deliveries fail once and wait to retry. */
async function fill(port: number): Promise<number> {
  const v2 = { "svc-api-key": KEY, "svc-secret": SECRET, "content-type": "application/json" };
  for (let i = 0; i < BACKLOG; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/send_text`, {
      method: "POST",
      headers: v2,
      body: JSON.stringify({ reference: `backlog-${i}` }),
    });
    await res.arrayBuffer();
  }
  // Let every first attempt fail, so that the backlog is deliveries waiting to retry.
  await new Promise((r) => setTimeout(r, 1000));
  const listed = await (await fetch(`http://127.0.0.1:${port}/_sandbox/deliveries?status=pending`)).json();
  return listed.deliveries.length;
}

/**
 * A receiver in a process of its own that acknowledges every delivery, as a user's would be: in
 * this one it would take the time of the client whose requests are timed.
 */
async function startSink(): Promise<{ url: string; child: ChildProcess }> {
  // GET /count answers how many POSTs it has acknowledged.
  const code = `let n = 0;
const s = require("node:http").createServer((q, r) => q.method === "GET" ? r.end(String(n)) : q.resume().on("end", () => (n++, r.end())));
s.listen(0, "127.0.0.1", () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}`, child };
}

/** POSTs the sink has acknowledged so far. */
const acknowledged = async (sinkUrl: string) => Number(await (await fetch(`${sinkUrl}/count`)).text());

/** A fresh sandbox with `receivers` receivers on the sink; `count` verifications created by `clients` clients at once. */
async function createVerifications(
  receivers: number,
  count: number,
  sinkUrl: string,
  clients = 1,
): Promise<{ server: Awaited<ReturnType<typeof start>>; base: string; createMs: number }> {
  const server = await start(sandbox);
  try {
    const base = `http://127.0.0.1:${server.port}`;
    for (let i = 0; i < receivers; i++) {
      const res = await fetch(`${base}/_sandbox/receivers`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${sinkUrl}/hook-${i}`, auth: { scheme: "bearer", token: `tok-${i}` } }),
      });
      await res.arrayBuffer();
    }
    const v2 = { "svc-api-key": KEY, "svc-secret": SECRET, "content-type": "application/json" };
    let next = 0;
    const client = async () => {
      for (let i = next++; i < count; i = next++) {
        const res = await fetch(`${base}/api/v2/send_text`, {
          method: "POST",
          headers: v2,
          body: JSON.stringify({ reference: `bench-${i}`, lastname: "sandbox-pending-error" }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`send_text answered ${res.status}`);
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, client));
    return { server, base, createMs: performance.now() - t0 };
  } catch (error) {
    // A round that fails leaves no sandbox behind.
    await stop(server.child);
    throw error;
  }
}

// Creation with no receiver and with a hundred (each event then goes to a hundred receivers), by one
// client and by ten, in turn, a fresh sandbox each round; the POSTs the receiver acknowledged meanwhile.
const createKey = (receivers: number, clients: number) => `${receivers}/${clients}`;
const createRounds = new Map<string, { seconds: number[]; posts: number[] }>();
{
  const sink = await startSink();
  try {
    for (let i = 0; i < CREATE_ROUNDS; i++) {
      for (const clients of CREATE_CLIENTS) {
        for (const receivers of i % 2 ? [...CREATE_RECEIVERS].reverse() : CREATE_RECEIVERS) {
          const before = await acknowledged(sink.url);
          const made = await createVerifications(receivers, CREATE_VERIFICATIONS, sink.url, clients);
          const posts = (await acknowledged(sink.url)) - before;
          await stop(made.server.child);
          const key = createKey(receivers, clients);
          const into = createRounds.get(key) ?? { seconds: [], posts: [] };
          createRounds.set(key, into);
          into.seconds.push(made.createMs / 1000);
          into.posts.push(posts);
        }
      }
    }
  } finally {
    await stop(sink.child);
  }
}
const seconds = (receivers: number, clients: number) =>
  median(createRounds.get(createKey(receivers, clients))?.seconds ?? []);
const spreadS = (xs: number[]) =>
  `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
const createRows = CREATE_CLIENTS.flatMap((clients) =>
  CREATE_RECEIVERS.map((r) => {
    const { seconds: xs = [], posts = [] } = createRounds.get(createKey(r, clients)) ?? {};
    return `| ${r} | ${clients} | ${spreadS(xs)} | ${Math.round((median(xs) / CREATE_VERIFICATIONS) * 1e6)} | ${Math.round(median(posts))} |`;
  }),
);
for (const row of createRows) console.log(row);
const [none, most] = CREATE_RECEIVERS as [number, number];

/**
 * Creation of VERIFICATIONS pending-then-error verifications with RECEIVERS receivers (the sink
 * acknowledging every delivery), then one `advance P7D` that runs every retry, error, archive and
 * delivery they schedule, while another client asks for the clock every 20 ms: how long the
 * advance takes, and how long the other client waits meanwhile.
 */
async function advanceRound(): Promise<{ createMs: number; advanceMs: number; waits: number[] }> {
  const sink = await startSink();
  let server: Awaited<ReturnType<typeof start>> | undefined;
  try {
    const made = await createVerifications(RECEIVERS, VERIFICATIONS, sink.url);
    server = made.server;
    const { base, createMs } = made;
    const waits: number[] = [];
    let advancing = true;
    const probe = (async () => {
      while (advancing) {
        const asked = performance.now();
        await (await fetch(`${base}/_sandbox/clock`)).arrayBuffer();
        waits.push(performance.now() - asked);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const t1 = performance.now();
    const advanced = await fetch(`${base}/_sandbox/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ duration: "P7D" }),
    });
    await advanced.arrayBuffer();
    const advanceMs = performance.now() - t1;
    advancing = false;
    await probe;
    if (advanced.status !== 200) throw new Error(`advance answered ${advanced.status}`);
    return { createMs, advanceMs, waits };
  } finally {
    if (server) await stop(server.child);
    await stop(sink.child);
  }
}

const advanceRounds: { createMs: number; advanceMs: number; waits: number[] }[] = [];
for (let i = 0; i < ADVANCE_ROUNDS; i++) advanceRounds.push(await advanceRound());
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
const advanceRow = `| ${VERIFICATIONS} × sandbox-pending-error, ${RECEIVERS} receivers | ${spread(advanceRounds.map((r) => (r.createMs / VERIFICATIONS) * 1000))} | ${spread(advanceRounds.map((r) => r.advanceMs))} | ${spread(advanceRounds.map((r) => pct(r.waits, 0.5)))} | ${spread(advanceRounds.map((r) => pct(r.waits, 0.99)))} | ${spread(advanceRounds.map((r) => Math.max(...r.waits)))} |`;
console.log(advanceRow);

// Three servers at once, loaded in turn round after round, so that the machine's drift falls on all
// three alike. Both sandboxes hold the same thousand verifications; one has a receiver nothing
// listens on, so its thousand deliveries are pending.
const deadPort = await freePort();
const targets = [
  { name: "plain", server: await start(sandbox) },
  { name: "prism", server: await start(prism) },
  { name: "backlog", server: await start(sandbox, ["--webhook-url", `http://127.0.0.1:${deadPort}/hook`]) },
];
await fill(targets[0]?.server.port as number);
const pending = await fill(targets[2]?.server.port as number);
type LoadResult = { p99: number[]; p50: number[]; rps: number[]; non2xx: number };
const results = new Map<string, LoadResult>();
const resultOf = (name: string, connections: number): LoadResult => {
  const key = `${name}@${connections}`;
  let into = results.get(key);
  if (!into) results.set(key, (into = { p99: [], p50: [], rps: [], non2xx: 0 }));
  return into;
};
for (let i = 0; i < ROUNDS; i++) {
  for (const connections of CONNECTION_COUNTS) {
    for (const t of targets) {
      const r = await load(t.server.port, connections);
      const into = resultOf(t.name, connections);
      into.p99.push(r.latency.p99);
      into.p50.push(r.latency.p50);
      into.rps.push(Math.round(r.requests.average));
      into.non2xx += r.non2xx;
    }
  }
}
for (const t of targets) await stop(t.server.child);

const rows: string[] = [];
for (const connections of CONNECTION_COUNTS) {
  const plain = resultOf("plain", connections);
  const peerLoad = resultOf("prism", connections);
  const backlogged = resultOf("backlog", connections);
  rows.push(
    `| ${sandbox.name} | ${connections} | ${spread(startups.get(sandbox) ?? [])} | ${spread1(plain.p50)} | ${spread1(plain.p99)} | ${spread(plain.rps)} | ${plain.non2xx} |`,
    `| ${prism.name} | ${connections} | ${spread(startups.get(prism) ?? [])} | ${spread1(peerLoad.p50)} | ${spread1(peerLoad.p99)} | ${spread(peerLoad.rps)} | ${peerLoad.non2xx} |`,
    `| sandbox, ${pending} deliveries pending to a dead receiver | ${connections} | | ${spread1(backlogged.p50)} | ${spread1(backlogged.p99)} | ${spread(backlogged.rps)} | ${backlogged.non2xx} |`,
  );
}
for (const row of rows) console.log(row);
const at10 = { sandbox: resultOf("plain", 10), prism: resultOf("prism", 10) };
const p99At10 = median(at10.sandbox.p99);
const rpsRatio = median(at10.sandbox.rps) / median(at10.prism.rps);
// The main flow in this process: createSandbox()'s fetch beside startSandbox() over loopback.
const flows = await measureInProcess();
console.log(flows.table);
const lines = [
  { node: process.version, here: flows.here, http: flows.http, ratio: flows.ratio, spreads: flows.spreads },
  ...measureOnNodeLines(),
];
const lineRows = lines.map(
  (l) =>
    `| ${l.node} | ${l.spreads.here} | ${l.spreads.http} | ${l.ratio.toFixed(1)}× | ${l.spreads.paired} | ${l.ratio >= 5 ? "yes" : "**no**"} |`,
);
console.log(lineRows.join("\n"));
const loadAverage = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

writeBenchSection(
  "sandbox",
  `## Sandbox (\`npm run bench:sandbox\`)

The compiled sandbox as \`npm run sandbox\` starts it, beside \`prism mock\` on the same contract, in one
run. Start-up: from spawn to the first answered \`POST /api/v4/pep_checks\`, median of ${STARTS} starts
of each, alternating (min–max in brackets). Load: autocannon, ${CONNECTION_COUNTS.join(" and ")} connections for ${SECONDS} s on a
valid, signed \`POST /api/v4/pep_checks\` (the contract's example body), median of ${ROUNDS} rounds
(min–max), the three servers running at once and loaded in turn. Both sandboxes hold ${BACKLOG}
verifications; the third's also has their ${BACKLOG} deliveries to a receiver nothing listens on
failed once and waiting to retry. Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
load average at the end ${loadAverage} on a shared 2-core machine (autocannon shares its cores).

| Server | Connections | Start to first answer (ms) | p50 (ms) | p99 (ms) | Requests/s | Non-2xx |
|---|---|---|---|---|---|---|
${rows.join("\n")}

| Target (10 connections) | Met | Measured |
|---|---|---|
| sandbox p99 ≤ 10 ms | ${p99At10 <= 10 ? "yes" : "**no**"} | ${p99At10} ms |
| sandbox requests/s ≥ 5× Prism's | ${rpsRatio >= 5 ? "yes" : "**no**"} | ${rpsRatio.toFixed(1)}× |

Creating verifications: ${CREATE_VERIFICATIONS} verifications with the last name \`sandbox-pending-error\`
(two events each), created by one client one after another and by ${CREATE_CLIENTS[1]} clients at once, in a
fresh sandbox with no receiver and with ${most} (the most a sandbox keeps: each event then goes to
${most} receivers), all on one local receiver in a process of its own acknowledging every POST.
Median of ${CREATE_ROUNDS} rounds (min–max), taking turns; the last column counts the POSTs the
receiver acknowledged while the verifications were created.

| Receivers | Clients | Create all (s) | Per verification (µs) | POSTs acknowledged meanwhile |
|---|---|---|---|---|
${createRows.join("\n")}

With ${most} receivers, creating ${CREATE_VERIFICATIONS} verifications takes ${seconds(most, CREATE_CLIENTS[1] as number).toFixed(1)} s with ${CREATE_CLIENTS[1]} clients
(${(seconds(most, CREATE_CLIENTS[1] as number) / seconds(none, CREATE_CLIENTS[1] as number)).toFixed(2)}× the time with none) and ${seconds(most, 1).toFixed(1)} s with one (${(seconds(most, 1) / seconds(none, 1)).toFixed(2)}×). An event is kept once
with its receivers, and each receiver's delivery is made when it is first attempted (or listed,
saved or erased): past the 10,000 deliveries a sandbox keeps, most of an event's deliveries are
forgotten before they are made, at the cost of a count. What the receivers add is the POSTs
actually made, sent from a thread of their own; on this 2-core machine the client, the sandbox,
its delivery thread and the receiver's process share the cores.

Creating verifications and advancing the clock: ${VERIFICATIONS} verifications with the last name
\`sandbox-pending-error\` created one after another with ${RECEIVERS} receivers registered (a local
receiver in a process of its own acknowledging every delivery), then one \`POST /_sandbox/clock/advance\`
of P7D, which runs every pending retry, error, archive and delivery they schedule; meanwhile
another client asks \`GET /_sandbox/clock\` every 20 ms. Median of ${ADVANCE_ROUNDS} rounds (min–max),
a fresh sandbox each.

| Work | Create, per verification (µs) | Advance P7D (ms) | Other client's wait p50 (ms) | p99 (ms) | max (ms) |
|---|---|---|---|---|---|
${advanceRow}

The advance runs its timers in slices of about 10 ms and answers other requests between them, so
the other client's wait is bounded by a slice, not by the advance.

The main flow in the test's own process: create a biometric verification, complete it, wait for
its deliveries (\`settled()\`), download the PDF, advance the clock an hour and see the archived
event, its three events delivered to a receiver in the same process. \`createSandbox()\` answers
through its \`fetch\` to a handler receiver, with no socket; \`startSandbox()\` through the
client's own fetch (none given, as a user keeps it) over loopback to a node:http receiver. Median of
${flows.rounds} rounds (min–max) of each round's median flow, ${flows.flows} flows a round after one
unmeasured, the two taking turns after ${flows.warmup} unmeasured rounds of each (V8 optimises the
sandbox's code over the first few hundred flows, for both alike); the last column is a whole round
with its start and close. On ${process.version}:

${flows.table}

The same measurement on each Node line the tests fetched (\`npm run test:node-lines\`), each in a
process of its own: one flow in ms, median (min–max) of the rounds' medians; the ratio of those
medians; and each round's own ratio, its two sides having run beside each other. The target, a flow
in-process at least 5× faster than over loopback:

| Node | In-process | Over loopback | Ratio | Each round's ratio | ≥ 5× |
|---|---|---|---|---|---|
${lineRows.join("\n")}

Node 20 reached the end of its life on 30 April 2026 and is not one of the lines the project
maintains (22, 24, 26); the package still installs on it (\`engines\`).

Both run the same sandbox, the same checks and the same records; what the in-process one saves is
the transport alone (HTTP over loopback, and the delivery thread's POSTs), so the ratio is what
the transport costs of the whole flow.

The sandbox checks every request (credentials, the contract's schema) and makes a record of each
valid one; Prism answers from the contract's examples without checking the signature. Non-2xx from
Prism are its own answers to the request it validated against the contract.`,
);
console.log("wrote docs/benchmarks.md (sandbox)");
