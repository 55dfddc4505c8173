// Forgetting a delivery whose handler failed, so that the service's next attempt is processed:
// the deduper's forget(), and release() of the in-memory and Redis stores.
import { describe, expect, it } from "vitest";
import {
  createDeduper,
  type DedupeStore,
  DeliveryNotRecordedError,
  MemoryDedupeStore,
  parseWebhook,
  RedisDedupeStore,
  type WebhookEvent,
} from "../../src/webhooks/index.js";
import { deliveryOf } from "./deliveries.js";

const eventOf = (name: string): WebhookEvent => {
  const d = deliveryOf(name);
  const { event } = parseWebhook(d.body, d.headers);
  if (!event) throw new Error(`the example ${name} does not parse`);
  return event;
};

/** A node-redis-shaped client over a Map: SET NX/XX PX, GET and DEL, as the store sends them. */
function fakeRedis() {
  const data = new Map<string, string>();
  const sent: string[][] = [];
  return {
    data,
    sent,
    sendCommand: async (args: string[]) => {
      sent.push(args);
      const [command, key = "", value = ""] = args;
      if (command === "GET") return data.get(key) ?? null;
      if (command === "DEL") return data.delete(key) ? 1 : 0;
      if (args.includes("NX") && data.has(key)) return null;
      if (args.includes("XX") && !data.has(key)) return null;
      data.set(key, value);
      return "OK";
    },
  };
}

describe("MemoryDedupeStore.release", () => {
  it("forgets a key: its next claim succeeds; other keys stay", () => {
    const store = new MemoryDedupeStore({ maxEntries: 3 });
    expect(store.claim("a", 60_000)).toBe(true);
    expect(store.claim("b", 60_000)).toBe(true);
    store.release("a");
    store.release("never-claimed");
    expect(store.claim("b", 60_000)).toBe(false);
    expect(store.claim("a", 60_000)).toBe(true);
    expect(store.claim("a", 60_000)).toBe(false);
    expect(store.size).toBe(2);
  });

  it("forgetting an evicted key leaves the ring whole", () => {
    const store = new MemoryDedupeStore({ maxEntries: 2 });
    for (const key of ["a", "b", "c"]) store.claim(key, 60_000); // a is evicted
    store.release("a");
    expect(store.claim("b", 60_000)).toBe(false);
    expect(store.claim("c", 60_000)).toBe(false);
  });
});

describe("the deduper's forget", () => {
  it("lets the next attempt of a forgotten delivery through, once", async () => {
    const deduper = createDeduper();
    const event = eventOf("completed");
    expect(await deduper.isDuplicate(event)).toBe(false);
    expect(await deduper.isDuplicate(event)).toBe(true);
    await deduper.forget!(event);
    expect(await deduper.isDuplicate(event)).toBe(false);
    expect(await deduper.isDuplicate(event)).toBe(true);
  });

  it("rejects when the store has no release method", async () => {
    const store: DedupeStore = { claim: () => true };
    await expect(createDeduper({ store }).forget!(eventOf("created"))).rejects.toThrow(/no release method/);
  });

  it("with RedisDedupeStore, deletes the key under the prefix", async () => {
    const redis = fakeRedis();
    const deduper = createDeduper({ store: new RedisDedupeStore(redis, { prefix: "t:" }) });
    const event = eventOf("case.completed");
    expect(await deduper.isDuplicate(event)).toBe(false);
    expect(await deduper.isDuplicate(event)).toBe(true);
    await deduper.forget!(event);
    const del = redis.sent.find(([command]) => command === "DEL");
    expect(del?.[1]).toMatch(/^t:w:[\w-]{43}$/);
    expect(redis.data.size).toBe(0);
    expect(await deduper.isDuplicate(event)).toBe(false);
  });

  it("with RedisDedupeStore, rejects with DeliveryNotRecordedError when Redis does not answer", async () => {
    const silent = { sendCommand: () => new Promise<unknown>(() => {}) };
    const store = new RedisDedupeStore(silent, { timeoutMs: 5, leaseMs: 10 });
    await expect(store.release("e:key")).rejects.toBeInstanceOf(DeliveryNotRecordedError);
    await expect(store.release("x".repeat(200))).rejects.toThrow(RangeError);
  });
});
