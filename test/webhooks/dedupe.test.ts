import { describe, expect, it } from "vitest";
import {
  createDeduper,
  DEFAULT_RETENTION_MS,
  type DedupeStore,
  deliveryKey,
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
    expect(deliveryKey(retry)).toBe("workflow:whk_01JD6Q3ZC8M4T2N9V5X7R1B0KA");
    expect(deliveryKey(changed)).toBe(deliveryKey(retry));
  });

  it("keys a biometric delivery on transaction_id, event and content", () => {
    const key = deliveryKey(eventOf(completed.body));
    expect(key).toMatch(/^event:5f3c9a0e-8d2b-4f61-9c7a-2b1e4d6f8a90:completed:[\w-]{43}$/);
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
    expect(claimed).toEqual([
      ["workflow:whk_01JD6Q3ZC8M4T2N9V5X7R1B0KA", 7 * HOUR],
      ["workflow:whk_01JD6Q3ZC8M4T2N9V5X7R1B0KA", 7 * HOUR],
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
