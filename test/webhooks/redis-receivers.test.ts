// Two instances of the README's receiver, each in a process of its own, sharing one redis-server
// through RedisDedupeStore: the same delivery sent to both is processed once, and a Redis stopped
// mid-run makes them answer 503 until it is back, then the retry is processed once. Both client
// libraries.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { deliveryKey, parseWebhook } from "../../src/webhooks/index.js";
import { connectClient, LIBRARIES, TestRedis } from "../support/redis-server.js";
import { type Delivery, deliveryOf } from "./deliveries.js";

const TOKEN = "tok_redis_receivers_9c2d";
const WORKFLOW_PATH = "/cases/4e8a1f07b2c9";
const RETRY = { timeout: 20_000, interval: 50 };

/** A receiver process: its port and the keys of the events it processed, in order. */
interface Instance {
  child: ChildProcess;
  port: number;
  handled: string[];
}

async function startInstance(library: string, redisPort: number, retentionMs?: number): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      fromRoot("test/support/redis-receiver.ts"),
      library,
      String(redisPort),
      TOKEN,
      WORKFLOW_PATH,
      ...(retentionMs ? [String(retentionMs)] : []),
    ],
    // stdin stays open: the receiver ends when it closes, should this file end without stopping it.
    { cwd: fromRoot(), stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4000)));
  const handled: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on("line", (line) => {
      const [word, value] = line.split(" ");
      if (word === "listening") resolve(Number(value));
      if (word === "handled") handled.push(value!);
    });
    child.once("exit", (code) => reject(new Error(`receiver exited (${code}):\n${stderr}`)));
  });
  return { child, port, handled };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.child.exitCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once("exit", resolve));
  instance.child.kill("SIGTERM");
  await exited;
}

/** A biometric delivery of its own (a transaction_id of its own), and its key. */
function deliveryFor(transactionId: string): Delivery & { key: string } {
  const d = deliveryOf("completed");
  const body = JSON.stringify({ ...(d.payload as object), transaction_id: transactionId });
  const { event } = parseWebhook(body, {});
  return { ...d, body, key: deliveryKey(event!) };
}

/** POST a delivery as the service does; the status it got. */
async function post(instance: Instance, d: Delivery): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${instance.port}/idv/events`, {
    method: "POST",
    headers: { ...d.headers, Authorization: `Bearer ${TOKEN}` },
    body: d.body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** Send again until acknowledged, as the service retries; every status seen. */
async function retryUntilAcknowledged(instance: Instance, d: Delivery): Promise<number[]> {
  const statuses: number[] = [];
  await vi.waitFor(async () => {
    statuses.push(await post(instance, d));
    expect(statuses.at(-1)).toBe(200);
  }, RETRY);
  return statuses;
}

/**
 * Every event an instance processes is printed in the same turn as its 200: once a fresh
 * delivery shows up in its output, so has everything it processed before.
 */
async function settle(instances: Instance[], tag: string): Promise<void> {
  for (const [i, instance] of instances.entries()) {
    const marker = deliveryFor(`marker-${tag}-${i}`);
    expect(await retryUntilAcknowledged(instance, marker)).toContain(200);
    await vi.waitFor(() => expect(instance.handled).toContain(marker.key), RETRY);
  }
}

const count = (instances: Instance[], key: string) =>
  instances.flatMap((i) => i.handled).filter((k) => k === key).length;

describe.each(LIBRARIES)("two receiver processes sharing one Redis, through %s", (library) => {
  let redis: TestRedis;
  let a: Instance;
  let b: Instance;
  /** A third instance, remembering deliveries for one second only. */
  let brief: Instance;

  beforeAll(async () => {
    redis = await TestRedis.start();
    [a, b, brief] = await Promise.all([
      startInstance(library, redis.port),
      startInstance(library, redis.port),
      startInstance(library, redis.port, 1_000),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stopInstance(a), stopInstance(b), stopInstance(brief)]);
    await redis?.close();
  });

  it("processes a delivery sent to both once, sent one after the other or at the same time", async () => {
    const one = deliveryFor(`${library}-sequential`);
    // Acknowledged by one, then by the other (a slow machine may make either answer 503 first).
    await retryUntilAcknowledged(a, one);
    await retryUntilAcknowledged(b, one);
    const many = Array.from({ length: 20 }, (_, i) => deliveryFor(`${library}-concurrent-${i}`));
    // Both at once: one claims, the other finds it done (200) or still being claimed (503, and
    // the service sends it again).
    await Promise.all(
      many.flatMap((d) =>
        [a, b].map(async (instance) => {
          if ((await post(instance, d)) !== 200) await retryUntilAcknowledged(instance, d);
        }),
      ),
    );
    await settle([a, b], "both");
    for (const d of [one, ...many]) expect(count([a, b], d.key), d.body.slice(0, 0)).toBe(1);
  });

  it("answers 503 while Redis is stopped, and processes the retry once Redis is back", async () => {
    const d = deliveryFor(`${library}-outage`);
    await redis.stop();
    expect(await post(a, d)).toBe(503);
    expect(await post(b, d)).toBe(503);
    await redis.resume();
    const statuses = await retryUntilAcknowledged(b, d);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    await retryUntilAcknowledged(a, d);
    await settle([a, b], "outage");
    expect(count([a, b], d.key)).toBe(1);
  });

  it("answers 503 while Redis does not answer, and processes the retry once it does", async () => {
    const d = deliveryFor(`${library}-paused`);
    redis.pause();
    expect(await post(a, d)).toBe(503);
    redis.unpause();
    await retryUntilAcknowledged(b, d);
    await retryUntilAcknowledged(a, d);
    await settle([a, b], "paused");
    expect(count([a, b], d.key)).toBe(1);
  });

  it("answers 503 while another application's value sits under its key, and processes the retry once it is gone", async () => {
    const d = deliveryFor(`${library}-foreign`);
    const other = await connectClient("node-redis", redis.port);
    try {
      const plant = (args: string[]) =>
        (other.client as { sendCommand(a: string[]): Promise<unknown> }).sendCommand(args);
      await plant(["SET", `test:receivers:${d.key}`, "done"]);
      expect(await post(a, d)).toBe(503);
      expect(await post(b, d)).toBe(503);
      await plant(["DEL", `test:receivers:${d.key}`]);
    } finally {
      other.close();
    }
    await retryUntilAcknowledged(a, d);
    await retryUntilAcknowledged(b, d);
    await settle([a, b], "foreign");
    expect(count([a, b], d.key)).toBe(1);
  });

  it("processes a delivery again when it is sent after the retention", async () => {
    const d = deliveryFor(`${library}-after-retention`);
    await retryUntilAcknowledged(brief, d);
    await vi.waitFor(() => expect(count([brief], d.key)).toBe(1), RETRY);
    // Sent again and again: acknowledged as a duplicate until the key expires, then processed.
    await vi.waitFor(async () => {
      expect(await post(brief, d)).toBe(200);
      expect(count([brief], d.key)).toBe(2);
    }, RETRY);
  });
});
