// Helpers of the sandbox's tests: a sandbox on a free port with its deliveries recorded, a receiver
// that records what it gets and answers as told, and the conformance checks over both.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, inflateRawSync } from "node:zlib";
import { createConformanceChecker, createWebhookChecker, type EntryResult } from "../../conformance/index.js";
import { createSandboxControl } from "../../sandbox/index.js";
import { type RunningSandbox, type StartOptions, launchSandbox } from "../../sandbox/start.js";
import { createClient, type IdvClient } from "../../src/index.js";
import { type CollectingReceiver, type Received, startCollectingReceiver } from "./collecting-receiver.js";
import { recordingFetch } from "./har-recorder.js";

export const CREDENTIALS = { apiKey: "sbx-test-key", secret: "sbx-test-secret" };

export type { Received };

/**
 * A receiver that records every request and answers with `status()` (200 unless told), or never;
 * `arrived(n)` waits for the nth request.
 */
export function startRecorder(status: () => number | "hang" = () => 200): Promise<CollectingReceiver> {
  return startCollectingReceiver((_, res) => {
    const s = status();
    if (s !== "hang") res.writeHead(s).end();
  });
}

/** A sandbox on a free port, fast journeys, its client traffic and deliveries recorded. */
export async function startTestSandbox(options: StartOptions = {}) {
  const deliveries: { url: string; headers: Record<string, string>; body: string }[] = [];
  const lines: string[] = [];
  const running: RunningSandbox = await launchSandbox({
    port: 0,
    credentials: CREDENTIALS,
    journeyDelayMs: 100,
    deliveryTimeoutMs: 1000,
    log: (line) => lines.push(line),
    observeDelivery: (delivery, receiver) =>
      deliveries.push({ url: receiver.url, headers: delivery.headers, body: delivery.body }),
    ...options,
  });
  const recorder = recordingFetch();
  const client: IdvClient = createClient({
    baseUrl: running.url,
    ...CREDENTIALS,
    fetch: recorder.fetch,
    runtime: "server",
    retry: false,
  });
  return { running, client, recorder, deliveries, lines, control: createSandboxControl(running.url) };
}

/** Every HTTP entry that breaks the contract (empty when all conform). */
export async function trafficViolations(har: object): Promise<EntryResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "sbx-har-"));
  const file = join(dir, "traffic.har");
  writeFileSync(file, JSON.stringify(har));
  const failing: EntryResult[] = [];
  for await (const r of createConformanceChecker().checkFile(file, "har")) if (!r.ok) failing.push(r);
  return failing;
}

/** The deliveries as NDJSON lines the webhook checker reads. */
export function deliveriesNdjson(
  deliveries: { url: string; headers: Record<string, string>; body: string }[],
): string {
  return deliveries
    .map((d) =>
      JSON.stringify({
        request: {
          method: "POST",
          url: d.url,
          headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v])),
          body: d.body,
        },
      }),
    )
    .join("\n");
}

/** Every delivery that breaks the AsyncAPI contract (empty when all conform). */
export async function deliveryViolations(
  deliveries: { url: string; headers: Record<string, string>; body: string }[],
): Promise<EntryResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "sbx-deliveries-"));
  const file = join(dir, "deliveries.ndjson");
  writeFileSync(file, deliveriesNdjson(deliveries));
  const checker = await createWebhookChecker();
  const failing: EntryResult[] = [];
  for await (const r of checker.checkFile(file, "ndjson"))
    if (!r.ok || r.warnings.length > 0) failing.push(r);
  return failing;
}

/** Wait until `check` is true (polling every 20 ms, up to `ms`: generous, for a loaded machine). */
export async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The biometric events a recorder got, in order, as `event` names. */
export const eventsOf = (received: Received[], transactionId?: string): string[] =>
  received
    .map((r) => JSON.parse(r.body) as { event?: string; transaction_id?: string })
    .filter((b) => transactionId === undefined || b.transaction_id === transactionId)
    .map((b) => b.event ?? "");

/**
 * The entries of a zip archive, each inflated and its CRC-32 checked against the central directory:
 * an independent reading of what the sandbox writes (unzip -t checks it too where installed).
 */
export function readZip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error("no end of central directory");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`entry ${i}: no central header`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const packed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`${name}: no local header`);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataAt, dataAt + packed);
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
    if (data.length !== size || crc32(data) !== crc) throw new Error(`${name}: size or CRC-32 differs`);
    out.set(name, data);
    at += 46 + nameLength + extra;
  }
  return out;
}

/** Whether Info-ZIP's unzip is installed (CI installs it; it checks the archives independently). */
export const hasUnzip = (): boolean => spawnSync("unzip", ["-v"]).status === 0;
