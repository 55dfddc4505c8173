// createWebhookHandler in both its forms (node:http listener; fetch handler behind a node:http
// adapter): the status of each outcome, which handler is called, and that no answer says why.
// (When the handler runs, before or after the answer, and its failures: handler-runs.test.ts.)
import type { RequestListener } from "node:http";
import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import {
  createDeduper,
  createWebhookHandler,
  type DedupeStore,
  DeliveryNotRecordedError,
  MemoryDedupeStore,
  type UnknownWebhookEvent,
  type WebhookEventOf,
  type WebhookHandlerOptions,
  type WebhookRefusal,
} from "../../src/webhooks/index.js";
import { deliveryOf, exampleDeliveries, personalValues } from "./deliveries.js";
import { FORMS, listenerOf, serve } from "./handler-servers.js";
import { BEARER, CASES, closeLater, closeStarted, EVENTS, start, TOKEN } from "./handler-start.js";

const WORDS = ["OK", "Bad Request", "Unauthorized", "Not Found", "Method Not Allowed", "Content Too Large"];

afterEach(closeStarted);

describe.each(FORMS)("createWebhookHandler, %s form", (form) => {
  it("calls the typed handler of each example event once, after answering 200", async () => {
    const seen: string[] = [];
    const { post } = await start(form, {
      on: {
        completed(event) {
          expectTypeOf(event).toEqualTypeOf<WebhookEventOf<"completed">>();
          seen.push(`completed ${event.payload.transaction_id}`);
        },
        case_completed(event) {
          expectTypeOf(event.payload).toEqualTypeOf<WebhookEventOf<"case_completed">["payload"]>();
          seen.push(`case_completed ${event.kind}`);
        },
        "case.completed"(event) {
          expectTypeOf(event.kind).toEqualTypeOf<"workflowCase">();
          seen.push(`case.completed ${event.webhookId}`);
        },
        created: (event) => void seen.push(`created ${event.event}`),
      },
    });
    for (const d of exampleDeliveries()) {
      const answer = await post(d.event);
      expect(answer.status, d.event).toBe(200);
      expect(await answer.text()).toBe("OK");
    }
    const completed = deliveryOf("completed").payload as { transaction_id: string };
    const workflowId = deliveryOf("case.completed").headers["X-Workflow-Webhook-Id"];
    expect(seen).toEqual([
      "created created",
      `completed ${completed.transaction_id}`,
      "case_completed eddCaseCompleted",
      `case.completed ${workflowId}`,
    ]);
  });

  it("answers a retry 200 without calling the handler again", async () => {
    const { post, calls } = await start(form);
    for (let i = 0; i < 3; i++) expect((await post("pending")).status).toBe(200);
    expect(calls.map((e) => e.event)).toEqual(["pending"]);
  });

  it("acknowledges an unknown event type: onUnknown is called once, when given", async () => {
    const unknown: UnknownWebhookEvent[] = [];
    const body = JSON.stringify({ ...(deliveryOf("created").payload as object), event: "expired" });
    const { post, calls } = await start(form, { onUnknown: (e) => void unknown.push(e) });
    expect((await post("created", { body })).status).toBe(200);
    expect((await post("created", { body })).status).toBe(200);
    expect(
      (await post("case.completed", { headers: { "X-Workflow-Event-Type": "case.reopened" } })).status,
    ).toBe(200);
    expect(calls).toEqual([]);
    expect(unknown.map((e) => [e.channel, e.event])).toEqual([
      [null, "expired"],
      ["workflowCase", "case.reopened"],
    ]);
    const without = await start(form);
    expect((await without.post("created", { body })).status).toBe(200);
    expect(without.calls).toEqual([]);
  });

  it("acknowledges an event it has no handler for, without recording it", async () => {
    const store = new MemoryDedupeStore();
    const claim = vi.spyOn(store, "claim");
    const called: string[] = [];
    const { post } = await start(form, {
      dedupe: createDeduper({ store }),
      on: { completed: () => void called.push("completed") },
    });
    expect((await post("archived")).status).toBe(200);
    expect(claim).not.toHaveBeenCalled();
    expect((await post("completed")).status).toBe(200);
    expect(claim).toHaveBeenCalledTimes(1);
    expect(called).toEqual(["completed"]);
  });

  it.each([
    ["no credentials", {}, "missing"],
    ["a wrong token", { Authorization: "Bearer tok_wrong" }, "mismatch"],
    ["another scheme", { Authorization: "Digest username=x" }, "unsupported_scheme"],
    ["a token-less Bearer", { Authorization: "Bearer" }, "malformed"],
  ])("refuses %s with 401 and a Bearer challenge, saying nothing more", async (_, headers, reason) => {
    const { url, calls, refusals } = await start(form);
    const d = deliveryOf("completed");
    const answer = await fetch(`${url}${EVENTS}`, {
      method: "POST",
      headers: { ...d.headers, ...headers },
      body: d.body,
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="webhooks"');
    expect(await answer.text()).toBe("Unauthorized");
    expect(calls).toEqual([]);
    expect(refusals).toEqual([{ status: 401, reason: "credentials", auth: reason }]);
  });

  it("challenges Basic when Basic credentials are configured, and accepts any of several (rotation)", async () => {
    const calls: string[] = [];
    const handler = createWebhookHandler({
      credentials: [
        { scheme: "basic", username: "idv", password: "old-pass" },
        { scheme: "basic", username: "idv", password: "new-pass" },
      ],
      on: { test: (e) => void calls.push(e.event) },
    });
    const { url, close } = await serve(listenerOf(form, { [EVENTS]: handler }));
    closeLater(close);
    const d = deliveryOf("test");
    const send = (auth?: string) =>
      fetch(`${url}${EVENTS}`, {
        method: "POST",
        headers: { ...d.headers, ...(auth ? { Authorization: auth } : {}) },
        body: d.body,
      });
    const refused = await send();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="webhooks", charset="UTF-8"');
    expect((await send(`Basic ${Buffer.from("idv:new-pass").toString("base64")}`)).status).toBe(200);
    expect(calls).toEqual(["test"]);
  });

  it.each(["GET", "PUT", "DELETE"])("answers %s with 405 and Allow: POST", async (method) => {
    const { url, refusals } = await start(form);
    const answer = await fetch(`${url}${EVENTS}`, { method, headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
    expect(refusals).toEqual([{ status: 405, reason: "method" }]);
  });

  it("refuses a malformed delivery with 400: where and why go to onRefused, never to the answer", async () => {
    const { post, calls, refusals } = await start(form);
    const d = deliveryOf("updated");
    const payload = d.payload as { verification: { data: { personal: { date_of_birth: unknown } } } };
    payload.verification.data.personal.date_of_birth = 2071985;
    const tampered = await post("updated", { body: JSON.stringify(payload) });
    expect(tampered.status).toBe(400);
    const text = await tampered.text();
    expect(text).toBe("Bad Request");
    for (const value of personalValues(d.payload)) expect(text).not.toContain(value);
    expect((await post("updated", { body: "{not json" })).status).toBe(400);
    expect(calls).toEqual([]);
    const [first, second] = refusals as Extract<WebhookRefusal, { reason: "malformed" }>[];
    expect(first?.error.pointer).toBe("/verification/data/personal/date_of_birth");
    expect(second?.error.kind).toBe("not_json");
  });

  it("refuses a body past maxBodyBytes with 413, declared or streamed", async () => {
    const { post, calls, refusals } = await start(form, { maxBodyBytes: 4_096 });
    const big = JSON.stringify({ ...(deliveryOf("created").payload as object), message: "x".repeat(5_000) });
    expect((await post("created", { body: big })).status).toBe(413);
    const chunks = [big.slice(0, 3_000), big.slice(3_000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    expect((await post("created", { body: stream })).status).toBe(413);
    expect(calls).toEqual([]);
    expect(refusals.map((r) => r.status)).toEqual([413, 413]);
    expect((await post("created")).status).toBe(200); // the connection and the handler still serve
  });

  it("answers 404 to a delivery of a channel this URL does not receive", async () => {
    const { post, calls, refusals } = await start(form);
    expect(
      (await post("case.completed", { path: EVENTS, headers: { Authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(404);
    expect((await post("created", { path: CASES })).status).toBe(404);
    expect(calls).toEqual([]);
    expect(refusals).toEqual([
      { status: 404, reason: "channel", channel: "workflowCase" },
      { status: 404, reason: "channel", channel: "biometricWebhook" },
    ]);
  });

  it.each([
    ["store_unavailable", new Error("ECONNREFUSED 10.0.0.7:6379")],
    ["in_flight", new DeliveryNotRecordedError("in_flight")],
  ])("answers 503 when the store cannot tell (%s), and calls no handler", async (reason, thrown) => {
    const store: DedupeStore = {
      claim: () => {
        throw thrown;
      },
    };
    const { post, calls, refusals } = await start(form, { dedupe: createDeduper({ store }) });
    const answer = await post("completed");
    expect(answer.status).toBe(503);
    expect(await answer.text()).toBe("Service Unavailable");
    expect(calls).toEqual([]);
    expect(refusals).toEqual([{ status: 503, reason: "not_recorded", notRecorded: reason }]);
  });

  it("answers every refusal with its status's own words only", async () => {
    const { url } = await start(form, { maxBodyBytes: 2_048 });
    const d = deliveryOf("completed");
    const bodies = await Promise.all(
      [
        fetch(`${url}${EVENTS}`, { method: "POST", body: d.body }),
        fetch(`${url}${EVENTS}`, { method: "GET" }),
        fetch(`${url}${EVENTS}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${TOKEN}` },
          body: "[1,",
        }),
        fetch(`${url}${EVENTS}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${TOKEN}` },
          body: "x".repeat(4_000),
        }),
      ].map(async (p) => {
        const answer = await p;
        expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
        return answer.text();
      }),
    );
    for (const body of bodies) expect(WORDS).toContain(body);
  });
});

describe("createWebhookHandler, node form only", () => {
  it("uses a body a middleware read as bytes (express.raw), and refuses a parsed one with 500", async () => {
    const stages: string[] = [];
    const calls: string[] = [];
    const handler = createWebhookHandler({
      credentials: BEARER,
      on: { completed: (e) => void calls.push(e.event) },
      onError: (_, failure) => void stages.push(failure.stage),
    });
    const parse =
      (as: "bytes" | "object"): RequestListener =>
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const raw = Buffer.concat(chunks);
          (req as { body?: unknown }).body = as === "bytes" ? raw : JSON.parse(raw.toString("utf8"));
          handler.node(req, res);
        });
      };
    const d = deliveryOf("completed");
    const init = {
      method: "POST",
      headers: { ...d.headers, Authorization: `Bearer ${TOKEN}` },
      body: d.body,
    };
    const raw = await serve(parse("bytes"));
    const parsed = await serve(parse("object"));
    closeLater(raw.close, parsed.close);
    expect((await fetch(raw.url, init)).status).toBe(200);
    expect(calls).toEqual(["completed"]);
    expect((await fetch(parsed.url, init)).status).toBe(500);
    expect(stages).toEqual(["body"]);
  });
});

describe("createWebhookHandler, fetch form only", () => {
  const d = deliveryOf("completed");
  const init = { method: "POST", headers: { ...d.headers, Authorization: `Bearer ${TOKEN}` } };

  it("refuses a request whose body was already read with 500, reported as a body failure", async () => {
    const stages: string[] = [];
    const handler = createWebhookHandler({
      credentials: BEARER,
      on: () => undefined,
      onError: (_, failure) => void stages.push(failure.stage),
    });
    const request = new Request("http://receiver.test/idv/events", { ...init, body: d.body });
    await request.text();
    expect((await handler.fetch(request)).status).toBe(500);
    expect(stages).toEqual(["body"]);
  });

  it("reports nothing when the sender's stream fails mid-body, and calls no handler", async () => {
    const reported: unknown[] = [];
    const calls: unknown[] = [];
    const handler = createWebhookHandler({
      credentials: BEARER,
      on: (e) => void calls.push(e),
      onError: (error) => void reported.push(error),
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(d.body.slice(0, 20)));
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request("http://receiver.test/idv/events", {
      ...init,
      body,
      duplex: "half",
    } as RequestInit);
    expect((await handler.fetch(request)).status).toBe(500);
    expect(reported).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe("createWebhookHandler's options", () => {
  const on = () => undefined;
  it.each([
    ["an empty token", { credentials: { scheme: "bearer", token: "" }, on }, /no empty token/],
    ["no credential", { credentials: [], on }, /at least one credential/],
    [
      '"none" on the biometric channel',
      { credentials: "none", channels: ["biometricWebhook"], on },
      /only the workflow channel/,
    ],
    [
      "a channel the contract lacks",
      { credentials: BEARER, channels: ["kyc"], on },
      /channels of the contract/,
    ],
    ["no handlers", { credentials: BEARER }, /on is an object/],
    ["an unknown mode", { credentials: BEARER, on, acknowledge: "never" }, /acknowledge is one of/],
    ["a zero limit", { credentials: BEARER, on, maxBodyBytes: 0 }, /maxBodyBytes/],
  ])("refuse %s when the handler is made", (_, options, message) => {
    expect(() => createWebhookHandler(options as unknown as WebhookHandlerOptions)).toThrow(message);
  });
});
