// Hostile deliveries through the whole route a receiver takes: parseWebhook, then the deduper,
// then the README's receiver over HTTP. Invariants: nothing throws past parse, a delivery answered
// 200 is processed (or is a duplicate, or an unknown event), no built-in prototype changes, and no
// canary appears in any error or log line.
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createReceiver } from "../../examples/webhook-receiver.js";
import {
  createDeduper,
  deliveryKey,
  MAX_WEBHOOK_DEPTH,
  parseWebhook,
  type WebhookEvent,
} from "../../src/webhooks/index.js";
import type { Json } from "../support/contract.js";
import {
  assertPrototypesUntouched,
  containsCanary,
  deeplyNested,
  hostileHeaders,
  hostileJsonText,
  hostileJsonValue,
  invalidUtf8Json,
  prototypeSnapshot,
  sendRaw,
  rawStatus,
} from "../support/hostile.js";
import { deliveryOf, exampleDeliveries } from "./deliveries.js";

const deliveries = exampleDeliveries();

/** The completed example with a member nested `depth` objects deep, as JSON text. */
const completedNested = (depth: number) =>
  JSON.stringify(deliveryOf("completed").payload).replace(/}$/, `,"extra":${deeplyNested(depth, "object")}}`);

/** Every place in a JSON value: the path of keys and indexes to it. */
function placesIn(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(path);
  if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries<Json>(value))
      placesIn(v, [...path, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

/**
 * An example delivery with one hostile change: a value replaced, or a member added (prototype
 * names included, written into the JSON text as a sender would) at any depth.
 */
const hostileDelivery = () =>
  fc
    .constantFrom(...deliveries)
    .chain((d) =>
      fc.record({
        d: fc.constant(d),
        at: fc.constantFrom(...placesIn(d.payload)),
        value: hostileJsonValue(4),
        addKey: fc.option(fc.constantFrom("__proto__", "constructor", "prototype", "CANARY-SECRET-123")),
      }),
    )
    .map(({ d, at, value, addKey }) => {
      const hostile = JSON.stringify(value) ?? "null";
      if (at.length === 0) return { d, body: hostile };
      // A marker stands where the hostile text goes, and is replaced in the JSON text afterwards,
      // so that a member named __proto__ is written as a sender writes it.
      const marker = "\u0000HOSTILE\u0000";
      const payload = structuredClone(d.payload);
      let parent = payload;
      for (const step of at.slice(0, -1)) parent = parent[step];
      const last = at.at(-1)!;
      const target = parent[last];
      if (!addKey) parent[last] = marker;
      else if (Array.isArray(target)) target.push({ [marker]: true });
      else if (target !== null && typeof target === "object") target[marker] = true;
      else parent[last] = { [marker]: true };
      const body = JSON.stringify(payload)
        .replace(`${JSON.stringify(marker)}:true`, `${JSON.stringify(addKey)}:${hostile}`)
        .replace(JSON.stringify(marker), hostile);
      return { d, body };
    });

/** A body from any of the hostile sources, with the headers of some delivery and hostile extras. */
const anyHostileBody = () =>
  fc.oneof(
    // Untouched examples too: without some known events acknowledged, "processed" is never tested.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...deliveries)
        .map((d) => ({ d, body: JSON.stringify(d.payload) as string | Uint8Array })),
    },
    {
      weight: 3,
      arbitrary: hostileDelivery().map(({ d, body }) => ({ d, body: body as string | Uint8Array })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...deliveries), hostileJsonText())
        .map(([d, body]) => ({ d, body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...deliveries), invalidUtf8Json())
        .map(([d, body]) => ({ d, body })),
    },
  );

/** Node-style headers (a plain object, as node builds them) with hostile names and values added. */
function headersOf(base: Record<string, string>, extra: [string, string][]): Record<string, string> {
  const headers: Record<string, string> = JSON.parse(JSON.stringify(base));
  for (const [name, value] of extra)
    Object.defineProperty(headers, name, { value, enumerable: true, configurable: true, writable: true });
  return headers;
}

describe("depth: refused at parse, before any acknowledgement", () => {
  it("a completed event with a member nested 4,500 deep is too_deep, with a clear message", () => {
    const { event, error } = parseWebhook(completedNested(4_500), {});
    expect(event).toBeUndefined();
    expect(error?.kind).toBe("too_deep");
    expect(error?.message).toContain(`more than ${MAX_WEBHOOK_DEPTH} levels`);
  });

  it("120,000 levels of arrays or objects are refused without a stack overflow", () => {
    for (const kind of ["array", "object"] as const) {
      const { error } = parseWebhook(deeplyNested(120_000, kind), {});
      expect(error?.kind).toBe("too_deep");
      expect(containsCanary(error?.message ?? "")).toBe(false);
    }
  });

  it("exactly MAX_WEBHOOK_DEPTH levels are accepted, and the deduper keys them", async () => {
    const { event, error } = parseWebhook(completedNested(MAX_WEBHOOK_DEPTH - 1), {});
    expect(error).toBeUndefined();
    expect(await createDeduper().isDuplicate(event!)).toBe(false);
  });
});

describe("content type", () => {
  it("is not read: the body is JSON or not whatever Content-Type says, application/json-evil included", () => {
    const d = deliveryOf("completed");
    for (const type of ["application/json-evil", "text/plain", "application/json; charset=latin1"]) {
      expect(parseWebhook(d.body, { "content-type": type }).event?.kind).toBe("biometricWebhook");
      expect(parseWebhook("not json", { "content-type": type }).error?.kind).toBe("not_json");
    }
  });
});

describe("names in a delivery", () => {
  it("a key of a free-form object is not repeated in an error, whatever its shape", () => {
    const payload = structuredClone(deliveryOf("completed").payload);
    payload.verification.tampering_checks = { overall: true, details: { "CANARY-SECRET-123": "yes" } };
    const { error } = parseWebhook(JSON.stringify(payload), deliveryOf("completed").headers);
    expect(error?.kind).toBe("schema_violation");
    expect(error?.issues[0]?.pointer).toBe("/verification/tampering_checks/details/[redacted]");
    expect(containsCanary(JSON.stringify(error))).toBe(false);
  });
});

describe("hostile deliveries through parseWebhook and the deduper", () => {
  it("never throw past parse, touch no prototype and repeat no canary", async () => {
    const before = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(anyHostileBody(), hostileHeaders(), async ({ d, body }, extra) => {
        const deduper = createDeduper();
        const { event, error } = parseWebhook(body, headersOf(d.headers, extra));
        if (error) {
          expect(containsCanary(JSON.stringify(error)), error.message).toBe(false);
        } else {
          expect(deliveryKey(event)).toMatch(/^[we]:[\w-]{43}$/);
          expect(await deduper.isDuplicate(event)).toBe(false);
          expect(await deduper.isDuplicate(event)).toBe(true);
        }
        assertPrototypesUntouched(before);
      }),
      { numRuns: 150 },
    );
  });
});

describe("hostile deliveries through the README receiver", () => {
  const TOKEN = "tok_hostile_9c2d";
  const WORKFLOW_PATH = "/cases/hostile-3e8a";
  const handled: WebhookEvent[] = [];
  const logged: string[] = [];
  const log = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
  const warn = vi.spyOn(console, "warn").mockImplementation(log);
  const error = vi.spyOn(console, "error").mockImplementation(log);
  const server = createReceiver({
    credentials: { scheme: "bearer", token: TOKEN },
    workflowPath: WORKFLOW_PATH,
    handle: (event) => void handled.push(event),
  });
  let port = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    warn.mockRestore();
    error.mockRestore();
  });

  const post = (path: string, headers: Record<string, string>, body: string | Uint8Array) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : Buffer.from(body),
    });

  it("answers 400 to the 4,500-deep completed event, instead of 200 and then losing it", async () => {
    const response = await post(
      "/idv/events",
      { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      completedNested(4_500),
    );
    expect(response.status).toBe(400);
  });

  it("processes every delivery it answers 200 (unless a duplicate or unknown), and logs no canary", async () => {
    const before = prototypeSnapshot();
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(anyHostileBody(), hostileHeaders(), async ({ d, body }, extra) => {
        const workflow = d.channel === "workflowCase";
        const headers = new Headers(
          workflow ? d.headers : { ...d.headers, authorization: `Bearer ${TOKEN}` },
        );
        for (const [name, value] of extra) if (name !== "authorization") headers.set(name, value);
        const handledBefore = handled.length;
        const response = await post(
          workflow ? WORKFLOW_PATH : "/idv/events",
          Object.fromEntries(headers),
          body,
        );
        expect([200, 400, 404, 413]).toContain(response.status);
        // What the receiver decided, worked out independently: a known event, new to it, is processed.
        const { event } = parseWebhook(body, headers);
        const fresh =
          response.status === 200 && event && event.kind !== "unknown" && !seen.has(deliveryKey(event));
        if (fresh) {
          seen.add(deliveryKey(event));
          await vi.waitFor(() => expect(handled.length).toBe(handledBefore + 1));
        }
        expect(logged.filter((line) => line.includes("processing failed"))).toEqual([]);
        expect(logged.filter(containsCanary)).toEqual([]);
        assertPrototypesUntouched(before);
      }),
      { numRuns: 40 },
    );
    expect(
      seen.size,
      "some hostile deliveries were known events, acknowledged and processed",
    ).toBeGreaterThan(0);
  });

  it("lives through a body cut off midway and still answers the next delivery", async () => {
    const cut =
      "POST /idv/events HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n" +
      `Authorization: Bearer ${TOKEN}\r\n\r\n{"event":"completed","x":"`;
    await sendRaw(port, cut, 200);
    const d = deliveryOf("archived");
    const answer = await sendRaw(
      port,
      `POST /idv/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Length: ${Buffer.byteLength(d.body)}\r\n\r\n${d.body}`,
    );
    expect(rawStatus(answer)).toBe(200);
  });
});
