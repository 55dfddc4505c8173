// createWebhookHandler in both its forms (node:http listener; fetch handler behind a node:http
// adapter): the status of each outcome, which handler is called, and that no answer says why.
import type { RequestListener } from "node:http";
import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import {
  createDeduper,
  createWebhookHandler,
  type DedupeStore,
  DeliveryNotRecordedError,
  type KnownWebhookEvent,
  MemoryDedupeStore,
  type UnknownWebhookEvent,
  type WebhookEventOf,
  type WebhookHandlerOptions,
  type WebhookRefusal,
} from "../../src/webhooks/index.js";
import { deliveryOf, exampleDeliveries, personalValues } from "./deliveries.js";
import { FORMS, type Form, listenerOf, serve } from "./handler-servers.js";

const TOKEN = "tok_handler_test_91c4";
const BEARER = { scheme: "bearer", token: TOKEN } as const;
const EVENTS = "/idv/events";
const CASES = "/cases/5d0e7b21aa";
const WORDS = ["OK", "Bad Request", "Unauthorized", "Not Found", "Method Not Allowed", "Content Too Large"];

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** One handler for the events URL (credentials) and one for the workflow URL ("none"), served in one form. */
async function start(form: Form, options: Partial<WebhookHandlerOptions> = {}, listener?: RequestListener) {
  const calls: (KnownWebhookEvent | UnknownWebhookEvent)[] = [];
  const refusals: WebhookRefusal[] = [];
  const on = options.on ?? ((event: KnownWebhookEvent) => void calls.push(event));
  const dedupe = options.dedupe ?? createDeduper();
  const base = { dedupe, on, onRefused: (r: WebhookRefusal) => void refusals.push(r), ...options };
  const events = createWebhookHandler({ credentials: BEARER, ...base });
  const cases = createWebhookHandler({ ...base, credentials: "none" });
  const { url, close } = await serve(listener ?? listenerOf(form, { [EVENTS]: events, [CASES]: cases }));
  open.push(close);
  /** POST a delivery as the service does: workflow ones to the secret path, others with the token. */
  const post = (
    event: string,
    init: { body?: BodyInit; headers?: Record<string, string>; path?: string } = {},
  ) => {
    const d = deliveryOf(event);
    const workflow = d.channel === "workflowCase";
    return fetch(`${url}${init.path ?? (workflow ? CASES : EVENTS)}`, {
      method: "POST",
      headers: { ...d.headers, ...(workflow ? {} : { Authorization: `Bearer ${TOKEN}` }), ...init.headers },
      body: init.body ?? d.body,
      duplex: "half",
    } as RequestInit);
  };
  return { url, calls, refusals, post, events };
}

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
    open.push(close);
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

  it("after-handler: a handler that throws is answered 500 and the retry is processed", async () => {
    let attempts = 0;
    const errors: unknown[] = [];
    const { post } = await start(form, {
      acknowledge: "after-handler",
      onError: (error, failure) => void errors.push([failure.stage, (error as Error).message]),
      on: {
        completed: async () => {
          if (++attempts === 1) throw new Error("database down");
        },
      },
    });
    const first = await post("completed");
    expect(first.status).toBe(500);
    expect(await first.text()).toBe("Internal Server Error");
    expect((await post("completed")).status).toBe(200);
    expect((await post("completed")).status).toBe(200); // now a duplicate
    expect(attempts).toBe(2);
    expect(errors).toEqual([["handler", "database down"]]);
  });

  it("after-handler: a retry while the first attempt's handler runs is 503, so a failing first attempt is not lost", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let attempts = 0;
    const { post, refusals } = await start(form, {
      acknowledge: "after-handler",
      onError: () => undefined,
      on: {
        completed: async () => {
          if (++attempts > 1) return;
          started();
          await gate;
          throw new Error("database down");
        },
      },
    });
    const first = post("completed");
    await running;
    // The service retries while the first attempt is still being handled.
    expect((await post("completed")).status).toBe(503);
    expect(refusals.map((r) => r.reason)).toEqual(["in_progress"]);
    release();
    expect((await first).status).toBe(500);
    // The first attempt failed and was forgotten: the next retry is processed.
    expect((await post("completed")).status).toBe(200);
    expect(attempts).toBe(2);
  });

  it("after-handler: a store that cannot forget is reported, the answer is still 500", async () => {
    const claimed = new Set<string>();
    const store: DedupeStore = { claim: (key) => !claimed.has(key) && Boolean(claimed.add(key)) };
    const stages: string[] = [];
    const { post } = await start(form, {
      acknowledge: "after-handler",
      dedupe: createDeduper({ store }),
      onError: (_, failure) => void stages.push(failure.stage),
      on: () => {
        throw new TypeError("bug");
      },
    });
    expect((await post("created")).status).toBe(500);
    expect(stages).toEqual(["handler", "forget"]);
  });

  it("before-handler (the default): 200 first; a failing handler goes to onError, its work to defer", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const deferred: Promise<void>[] = [];
    const errors: string[] = [];
    let finished = false;
    const { post } = await start(form, {
      defer: (work) => void deferred.push(work),
      onError: (error, failure) =>
        void errors.push(`${failure.stage} ${(error as Error).message} ${failure.event?.event}`),
      on: {
        created: async () => {
          await gate; // still running when the answer is sent
          finished = true;
        },
        error: () => {
          throw new Error("no handler for errors yet");
        },
      },
    });
    expect((await post("created")).status).toBe(200);
    expect(finished).toBe(false);
    expect(deferred).toHaveLength(1);
    release();
    await deferred[0];
    expect(finished).toBe(true);
    expect((await post("error")).status).toBe(200);
    await deferred[1];
    expect(errors).toEqual(["handler no handler for errors yet error"]);
  });

  it("by default logs a failing handler by the error's name only", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const deferred: Promise<void>[] = [];
      const { post } = await start(form, {
        defer: (work) => void deferred.push(work),
        onError: undefined,
        on: () => {
          throw new RangeError("Jane Doe, born 1985-07-02");
        },
      });
      expect((await post("completed")).status).toBe(200);
      await deferred[0];
      const text = logged.mock.calls.flat().join("\n");
      expect(text).toContain("RangeError");
      expect(text).not.toContain("Jane");
    } finally {
      logged.mockRestore();
    }
  });

  it("lets no error of its hooks reach the request", async () => {
    const { post } = await start(form, {
      onRefused: () => {
        throw new Error("logger down");
      },
      defer: () => {
        throw new Error("defer down");
      },
    });
    expect((await post("created", { body: "{" })).status).toBe(400);
    expect((await post("created")).status).toBe(200);
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
    open.push(raw.close, parsed.close);
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
