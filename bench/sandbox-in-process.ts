// The main flow in-process and over loopback, side by side (part of `npm run bench:sandbox`; run
// alone, `npx tsx bench/sandbox-in-process.ts` prints its table). One flow: create a biometric
// verification, complete it, wait for its deliveries, download the PDF, advance the clock an hour,
// see the archived event: createSandbox()'s fetch with a handler receiver, against startSandbox()
// through the client's own fetch (as a user keeps it) with a node:http receiver in the same process.
// The two take turns, after unmeasured rounds of each.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { median } from "../scripts/lib/benchmarks-md.js";
import { createSandbox, startSandbox, type SandboxControl } from "../sandbox/index.js";
import { createClient, type IdvClient } from "../src/index.js";

const ROUNDS = Number(process.env.SANDBOX_BENCH_FLOW_ROUNDS ?? 7);
const FLOWS = Number(process.env.SANDBOX_BENCH_FLOWS ?? 30);
/** Unmeasured rounds of each transport first: V8 optimises the shared sandbox code over the first few hundred flows. */
const WARMUP_ROUNDS = Number(process.env.SANDBOX_BENCH_FLOW_WARMUP ?? 3);
const KEY = "bench-key";
const SECRET = "bench-secret";

interface Target {
  url: string;
  /** The fetch the client is given; none over loopback, where users keep the client's own. */
  fetch?: typeof fetch;
  control: SandboxControl;
  events: () => number;
  close(): Promise<void>;
}

/** One flow; throws unless it ends with the archived event delivered. */
async function flow(target: Target, client: IdvClient): Promise<void> {
  const before = target.events();
  const created = await client.POST("/api/v2/send_text", {
    body: { reference: "bench", firstname: "Mere", lastname: "Tane", contact_phone: "64211234567" },
  });
  const id = created.data?.transaction_id;
  if (!id) throw new Error(`send_text answered ${created.response.status}`);
  await target.control.biometric.complete(id, "pass");
  await target.control.settled();
  const pdf = await client.download("get", "/api/v2/biometric/pdf/{transaction_id}.pdf", {
    params: { path: { transaction_id: id } },
  });
  if (pdf.bytes.length === 0) throw new Error("empty PDF");
  await target.control.advance("PT1H");
  // created, completed, archived: each delivered and acknowledged before advance() answered.
  if (target.events() - before !== 3) throw new Error(`${target.events() - before} events, not 3`);
}

async function inProcess(): Promise<Target> {
  let events = 0;
  const sandbox = await createSandbox({ key: KEY, secret: SECRET });
  await sandbox.receivers.add(async (request) => {
    await request.arrayBuffer();
    events++;
    return new Response(null, { status: 204 });
  });
  return { ...sandbox, events: () => events };
}

async function overLoopback(): Promise<Target> {
  let events = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      events++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  const sandbox = await startSandbox({ key: KEY, secret: SECRET, receivers: [{ url }] });
  return {
    url: sandbox.url,
    control: sandbox.control,
    events: () => events,
    close: async () => {
      await sandbox.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}

/** The median milliseconds of FLOWS flows, after one unmeasured; and the whole round with its start and close. */
async function round(open: () => Promise<Target>): Promise<{ flowMs: number; wholeMs: number }> {
  const started = performance.now();
  const target = await open();
  const client = createClient({
    baseUrl: target.url,
    apiKey: KEY,
    secret: SECRET,
    ...(target.fetch ? { fetch: target.fetch } : {}),
  });
  try {
    await flow(target, client);
    const each: number[] = [];
    for (let i = 0; i < FLOWS; i++) {
      const at = performance.now();
      await flow(target, client);
      each.push(performance.now() - at);
    }
    // The round's median flow: a pause of the shared machine falls on one flow, not on the round.
    return { flowMs: median(each), wholeMs: performance.now() - started };
  } finally {
    await target.close();
  }
}

/** Median (min–max) with `digits` after the point, each followed by `unit`. */
const spread = (xs: number[], digits: number, unit = "") => {
  const show = (x: number) => `${x.toFixed(digits)}${unit}`;
  return `${show(median(xs))} (${show(Math.min(...xs))}–${show(Math.max(...xs))})`;
};

/** The side-by-side table and the ratio of the medians of one flow. */
export async function measureInProcess(): Promise<{
  table: string;
  ratio: number;
  rounds: number;
  flows: number;
  warmup: number;
  here: number;
  http: number;
  /** Each transport's round medians and the rounds' own ratios, as median (min–max). */
  spreads: { here: string; http: string; paired: string };
}> {
  const results = {
    here: [] as { flowMs: number; wholeMs: number }[],
    http: [] as { flowMs: number; wholeMs: number }[],
  };
  for (let i = 0; i < WARMUP_ROUNDS; i++) {
    await round(inProcess);
    await round(overLoopback);
  }
  for (let i = 0; i < ROUNDS; i++) {
    // Taking turns, each going first every other round, so that the machine's drift falls on both alike.
    const order = i % 2 ? (["http", "here"] as const) : (["here", "http"] as const);
    for (const side of order) results[side].push(await round(side === "here" ? inProcess : overLoopback));
  }
  const flows = (xs: typeof results.here) => xs.map((r) => r.flowMs);
  const wholes = (xs: typeof results.here) => xs.map((r) => r.wholeMs);
  const ratio = median(flows(results.http)) / median(flows(results.here));
  const table = [
    `| Transport | One main flow, median (ms) | Start, ${FLOWS + 1} flows, close (ms) |`,
    "|---|---|---|",
    `| createSandbox(): its fetch, a handler receiver (no socket) | ${spread(flows(results.here), 2)} | ${spread(wholes(results.here), 0)} |`,
    `| startSandbox(): the client's own fetch over loopback, a node:http receiver | ${spread(flows(results.http), 2)} | ${spread(wholes(results.http), 0)} |`,
  ].join("\n");
  const here = median(flows(results.here));
  const http = median(flows(results.http));
  // Both sides of a round ran beside each other: its own ratio shows how far the machine drifted.
  const paired = results.here.map((r, i) => (results.http[i]?.flowMs ?? Number.NaN) / r.flowMs);
  const spreads = {
    here: spread(flows(results.here), 2),
    http: spread(flows(results.http), 2),
    paired: spread(paired, 1, "×"),
  };
  return { table, ratio, rounds: ROUNDS, flows: FLOWS, warmup: WARMUP_ROUNDS, here, http, spreads };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const measured = await measureInProcess();
  // --json: for bench/sandbox.ts, which runs this file on each Node line it finds.
  if (process.argv.includes("--json")) console.log(JSON.stringify(measured));
  else console.log(`${measured.table}\nin-process ${measured.ratio.toFixed(1)}× faster per flow (median)`);
}
