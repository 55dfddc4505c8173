import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createDeduper,
  DEFAULT_RETENTION_MS,
  type DedupeStore,
  deliveryKey,
  MAX_KEY_LENGTH,
  MemoryDedupeStore,
  parseWebhook,
  type WebhookEvent,
} from "../../src/webhooks/index.js";
import type { Json } from "../support/contract.js";
import { asyncapi, deliveryOf, personalValues } from "./deliveries.js";

const HOUR = 60 * 60 * 1000;

function eventOf(body: string, headers: Record<string, string> = {}): WebhookEvent {
  const { event, error } = parseWebhook(body, headers);
  if (!event) throw new Error(error.message);
  return event;
}

const completed = deliveryOf("completed");
const workflow = deliveryOf("case.completed");

describe("deliveryKey", () => {
  it("keys a workflow delivery on X-Workflow-Webhook-Id alone", () => {
    const retry = eventOf(workflow.body, workflow.headers);
    const changed = eventOf(
      JSON.stringify({ ...workflow.payload, case_url: "https://app.idv.example.net/c/2" }),
      workflow.headers,
    );
    const idHash = createHash("sha256").update("whk_01JD6Q3ZC8M4T2N9V5X7R1B0KA").digest("base64url");
    expect(deliveryKey(retry)).toBe(`w:${idHash}`);
    expect(deliveryKey(changed)).toBe(deliveryKey(retry));
  });

  it("is 45 characters whatever the delivery holds, so a store's memory is bounded in bytes", () => {
    const huge = { ...workflow.headers, "X-Workflow-Webhook-Id": `whk_${"7".repeat(16_384)}` };
    expect(deliveryKey(eventOf(workflow.body, huge))).toMatch(/^w:[\w-]{43}$/);
    const long = structuredClone(completed.payload) as Json;
    long.transaction_id = "t".repeat(100_000);
    long.verification.notes = "n".repeat(200_000);
    expect(deliveryKey(eventOf(JSON.stringify(long)))).toMatch(/^e:[\w-]{43}$/);
  });

  it("hashes content nested 100 000 deep without throwing (iterative, not recursive)", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { a: deep };
    const event: WebhookEvent = {
      kind: "unknown",
      channel: null,
      event: "x",
      payload: deep,
      webhookId: undefined,
    };
    expect(deliveryKey(event)).toMatch(/^e:[\w-]{43}$/);
  });

  it("tells apart parts that a plain joined key would run together", () => {
    const a = eventOf(JSON.stringify({ ...(completed.payload as Json), transaction_id: "a:completed" }));
    const b = eventOf(JSON.stringify({ ...(completed.payload as Json), transaction_id: "a" }));
    expect(deliveryKey(a)).not.toBe(deliveryKey(b));
  });

  it("keys a biometric delivery on transaction_id, event and content", () => {
    const key = deliveryKey(eventOf(completed.body));
    expect(key).toMatch(/^e:[\w-]{43}$/);
    // The same content with its members in another order is the same delivery.
    const reordered = Object.fromEntries(Object.entries(completed.payload as Json).reverse());
    expect(deliveryKey(eventOf(JSON.stringify(reordered)))).toBe(key);
    // An updated result for the same verification is a new delivery.
    const updated = structuredClone(completed.payload) as Json;
    updated.verification.notes = "Reviewed by an agent.";
    expect(deliveryKey(eventOf(JSON.stringify(updated)))).not.toBe(key);
  });

  it("holds no personal data", () => {
    const key = deliveryKey(eventOf(completed.body));
    for (const value of personalValues(completed.payload)) expect(key).not.toContain(value);
  });
});

describe("createDeduper", () => {
  it("detects a duplicate delivery, and only the duplicate", async () => {
    const deduper = createDeduper();
    expect(await deduper.isDuplicate(eventOf(completed.body))).toBe(false);
    expect(await deduper.isDuplicate(eventOf(completed.body))).toBe(true);
    expect(await deduper.isDuplicate(eventOf(workflow.body, workflow.headers))).toBe(false);
    expect(await deduper.isDuplicate(eventOf(workflow.body, workflow.headers))).toBe(true);
    expect(await deduper.isDuplicate(eventOf(deliveryOf("archived").body))).toBe(false);
  });

  it("remembers a delivery for the whole retry span, then forgets it", async () => {
    let now = 0;
    const deduper = createDeduper({ store: new MemoryDedupeStore({ now: () => now }) });
    expect(await deduper.isDuplicate(eventOf(completed.body))).toBe(false);
    now = 5 * HOUR + 59 * 60 * 1000;
    expect(await deduper.isDuplicate(eventOf(completed.body))).toBe(true);
    now = 6 * HOUR + 1;
    expect(await deduper.isDuplicate(eventOf(completed.body))).toBe(false);
  });

  it("uses the store it is given", async () => {
    const claimed: [string, number][] = [];
    const store: DedupeStore = {
      async claim(key, ttlMs) {
        claimed.push([key, ttlMs]);
        return claimed.filter(([k]) => k === key).length === 1;
      },
    };
    const deduper = createDeduper({ store, retentionMs: 7 * HOUR });
    await deduper.isDuplicate(eventOf(workflow.body, workflow.headers));
    expect(await deduper.isDuplicate(eventOf(workflow.body, workflow.headers))).toBe(true);
    const key = deliveryKey(eventOf(workflow.body, workflow.headers));
    expect(claimed).toEqual([
      [key, 7 * HOUR],
      [key, 7 * HOUR],
    ]);
  });

  it("refuses a retention that is not positive", () => {
    expect(() => createDeduper({ retentionMs: 0 })).toThrow(RangeError);
  });
});

describe("MemoryDedupeStore", () => {
  it("drops expired keys, so memory stays bounded by the traffic of one retention", () => {
    let now = 0;
    const store = new MemoryDedupeStore({ now: () => now });
    for (let i = 0; i < 1000; i++) store.claim(`k${i}`, HOUR);
    expect(store.size).toBe(1000);
    now = HOUR;
    expect(store.claim("fresh", HOUR)).toBe(true);
    expect(store.size).toBe(1);
  });

  it("never holds more than maxEntries keys, dropping the oldest", () => {
    const store = new MemoryDedupeStore({ maxEntries: 3, now: () => 0 });
    for (const key of ["a", "b", "c", "d"]) expect(store.claim(key, HOUR)).toBe(true);
    expect(store.size).toBe(3);
    expect(store.claim("a", HOUR)).toBe(true);
    expect(store.claim("d", HOUR)).toBe(false);
  });
});

describe("MemoryDedupeStore, bounded", () => {
  it("refuses a key longer than MAX_KEY_LENGTH, naming the limit", () => {
    const store = new MemoryDedupeStore();
    expect(() => store.claim("k".repeat(MAX_KEY_LENGTH + 1), HOUR)).toThrow(/at most 128 characters/);
    expect(store.claim("k".repeat(MAX_KEY_LENGTH), HOUR)).toBe(true);
  });

  it("refuses a cap that is not a whole number of entries", () => {
    for (const maxEntries of [0, 1.5, Number.POSITIVE_INFINITY, Number.NaN])
      expect(() => new MemoryDedupeStore({ maxEntries })).toThrow(RangeError);
  });

  it("forgets a key claimed with a shorter retention than the keys after it", () => {
    let now = 0;
    const store = new MemoryDedupeStore({ now: () => now });
    store.claim("long", 10 * HOUR);
    store.claim("short", HOUR);
    now = 2 * HOUR;
    expect(store.claim("short", HOUR)).toBe(true);
    expect(store.claim("long", HOUR)).toBe(false);
  });

  it("answers as a list in claim order with expiry and a cap would, over any sequence of claims", () => {
    const step = fc.record({
      key: fc.integer({ min: 0, max: 12 }),
      advance: fc.integer({ min: 0, max: 40 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(step, { maxLength: 200 }), (cap, steps) => {
        let now = 0;
        const store = new MemoryDedupeStore({ maxEntries: cap, now: () => now });
        let model: { key: string; expiry: number }[] = [];
        for (const { key, advance } of steps) {
          now += advance;
          model = model.filter((e) => e.expiry > now);
          const fresh = !model.some((e) => e.key === `k${key}`);
          if (fresh) model.push({ key: `k${key}`, expiry: now + 100 });
          if (model.length > cap) model.shift();
          expect(store.claim(`k${key}`, 100)).toBe(fresh);
          expect(store.size).toBe(model.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("the default retention", () => {
  it("is at least 6 hours and covers the retry span of every operation of the contract", () => {
    expect(DEFAULT_RETENTION_MS).toBeGreaterThanOrEqual(6 * HOUR);
    const spans = Object.values<Json>(asyncapi.operations)
      .map((op) => op["x-delivery"]?.lastAttemptAfter)
      .filter(Boolean)
      .map((d: string) => {
        const m = /^PT(\d+)H$/.exec(d);
        if (!m) throw new Error(`unexpected duration ${d}`);
        return Number(m[1]) * HOUR;
      });
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) expect(DEFAULT_RETENTION_MS).toBeGreaterThan(span);
  });
});
