import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_RETRY, retryAfterMs } from "../../src/client/retry.js";
import { createTransport } from "../../src/client/transport.js";
import { createClient, TimeoutError } from "../../src/index.js";
import { BASE, recordingFetch } from "./recorder.js";

const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 1000 };
const pdf = () => new Response("%PDF", { headers: { "Content-Type": "application/pdf" } });
const failing = (status: number, headers: Record<string, string> = {}) =>
  Response.json({ error_code: "X", message: "m" }, { status, headers });

/** A transport whose waits are recorded instead of slept. */
function transportWith(answers: (() => Response | Promise<Response>)[], retry = fast) {
  const waits: number[] = [];
  const { fetch, sent } = recordingFetch((_r, n) => (answers[n - 1] ?? answers[answers.length - 1] ?? pdf)());
  const transport = createTransport({
    fetch,
    timeoutMs: 0,
    retry,
    renew: (r) => new Request(r),
    resign: () => undefined,
    random: () => 1,
    sleep: async (ms) => void waits.push(ms),
  });
  const call = (request: Request) => transport(request, undefined, { where: `${request.method} /a` });
  return { send: call, sent, waits };
}

describe("retries", () => {
  it.each([
    ["429", () => failing(429)],
    ["500", () => failing(500)],
    ["503", () => failing(503)],
    ["a network error", () => Promise.reject(new TypeError("fetch failed"))],
  ])("retries a GET after %s, then succeeds", async (_name, first) => {
    const { send, sent } = transportWith([first, pdf]);
    const response = await send(new Request("https://idv.test/a"));
    expect(response.status).toBe(200);
    expect(sent).toHaveLength(2);
  });

  it.each(["POST", "PUT", "PATCH"])("never retries a %s", async (method) => {
    const { send, sent } = transportWith([() => failing(503), pdf]);
    const response = await send(new Request("https://idv.test/a", { method, body: "{}" }));
    expect(response.status).toBe(503);
    expect(sent).toHaveLength(1);
  });

  it("never retries a POST after a network error", async () => {
    const { send, sent } = transportWith([() => Promise.reject(new TypeError("fetch failed")), pdf]);
    await expect(send(new Request("https://idv.test/a", { method: "POST", body: "{}" }))).rejects.toThrow(
      "POST /a: the connection to idv.test failed: network error",
    );
    expect(sent).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 422])("does not retry a GET answered %i", async (status) => {
    const { send, sent } = transportWith([() => failing(status), pdf]);
    expect((await send(new Request("https://idv.test/a"))).status).toBe(status);
    expect(sent).toHaveLength(1);
  });

  it("stops after the configured retries and returns the last answer", async () => {
    const { send, sent, waits } = transportWith([() => failing(502)]);
    expect((await send(new Request("https://idv.test/a"))).status).toBe(502);
    expect(sent).toHaveLength(3);
    // random() = 1: the full exponential delay, 1 ms then 2 ms.
    expect(waits).toEqual([1, 2]);
  });

  it("waits what Retry-After asks, in seconds or as an HTTP date", async () => {
    const later = new Date(Date.now() + 120_000).toUTCString();
    const { send, waits } = transportWith(
      [() => failing(429, { "Retry-After": "3" }), () => failing(503, { "Retry-After": later }), pdf],
      { ...fast, maxDelayMs: 600_000 },
    );
    expect((await send(new Request("https://idv.test/a"))).status).toBe(200);
    expect(waits[0]).toBe(3000);
    expect(waits[1]).toBeGreaterThan(110_000);
    expect(waits[1]).toBeLessThanOrEqual(120_000);
  });

  it("gives up rather than retry sooner than a Retry-After beyond the longest wait", async () => {
    const { send, sent } = transportWith([() => failing(429, { "Retry-After": "3600" }), pdf]);
    expect((await send(new Request("https://idv.test/a"))).status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  it("re-signs each retried v4 GET with a fresh date", async () => {
    let clock = Date.UTC(2026, 10, 22, 9, 30);
    const { fetch, sent } = recordingFetch((_r, n) => (n === 1 ? failing(503) : pdf()));
    const client = createClient({
      ...BASE,
      fetch,
      retry: fast,
      now: () => {
        clock += 1000;
        return new Date(clock);
      },
    });
    const file = await client.download("get", "/api/v4/pdf/pep_checks/{id}", { params: { path: { id: 5 } } });
    expect(file.bytes).toEqual(new TextEncoder().encode("%PDF"));
    expect(sent.map((s) => s.headers.get("Svc-Date"))).toEqual([
      "2026-11-22T09:30:01.000Z",
      "2026-11-22T09:30:02.000Z",
    ]);
    expect(sent[0]?.headers.get("Svc-Signature")).not.toBe(sent[1]?.headers.get("Svc-Signature"));
  });

  it("can be turned off", async () => {
    const { fetch, sent } = recordingFetch(() => failing(503));
    const client = createClient({ ...BASE, fetch, retry: false });
    const { response } = await client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } });
    expect(response.status).toBe(503);
    expect(sent).toHaveLength(1);
  });
});

describe("backoff and Retry-After parsing", () => {
  it("grows exponentially, jittered below the cap", () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, DEFAULT_RETRY, () => 1))).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelay(20, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
    expect(backoffDelay(3, DEFAULT_RETRY, () => 0.5)).toBe(1000);
    expect(backoffDelay(3, DEFAULT_RETRY, () => 0)).toBe(0);
  });

  it.each([
    ["120", 120_000],
    [" 0 ", 0],
    ["Sun, 22 Nov 2026 09:30:10 GMT", 10_000],
    ["Sun, 22 Nov 2026 09:29:00 GMT", 0],
    ["soon", undefined],
    ["-5", undefined],
    [null, undefined],
  ])("reads %j as %j ms", (header, want) => {
    expect(retryAfterMs(header, Date.UTC(2026, 10, 22, 9, 30, 0))).toBe(want);
  });
});

describe("timeouts", () => {
  const hanging = () => new Promise<Response>(() => {});

  it("aborts an attempt with no answer within timeoutMs, even when fetch ignores the signal", async () => {
    const client = createClient({ ...BASE, fetch: hanging, timeoutMs: 20, retry: false });
    const call = client.POST("/api/v4/pep_checks", {
      body: { reference: "r", firstname: "a", lastname: "b", date_of_birth: "01/01/2000" },
    });
    await expect(call).rejects.toBeInstanceOf(TimeoutError);
    await expect(call).rejects.toThrow("POST /api/v4/pep_checks got no response within 20 ms");
  });

  it("ends a call whose body never finishes, even when fetch ignores the signal", async () => {
    // Headers at once, then a body that never ends and no attention paid to the abort signal.
    const endless = async () =>
      new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"id":')) }), {
        headers: { "Content-Type": "application/json" },
      });
    const client = createClient({ ...BASE, fetch: endless, timeoutMs: 20, retry: false });
    const call = client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } });
    await expect(call).rejects.toThrow(
      "GET /api/v4/outsource_cases/{id} got no complete response within 20 ms",
    );
  });

  it("passes an abort signal to fetch that fires on timeout", async () => {
    let seen: AbortSignal | undefined;
    const fetch = (_request: Request, init?: RequestInit) => {
      seen = init?.signal ?? undefined;
      return hanging();
    };
    const client = createClient({ ...BASE, fetch, timeoutMs: 20, retry: false });
    await expect(client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } })).rejects.toThrow(
      TimeoutError,
    );
    expect(seen?.aborted).toBe(true);
  });

  it("retries a GET that timed out", async () => {
    const { fetch, sent } = recordingFetch((_r, n) => (n === 1 ? hanging() : Response.json({ id: 1 })));
    const client = createClient({ ...BASE, fetch, timeoutMs: 20, retry: fast });
    const { data } = await client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } });
    expect(data).toEqual({ id: 1 });
    expect(sent).toHaveLength(2);
  });

  it("does not retry when the caller aborts", async () => {
    const { fetch, sent } = recordingFetch(() => hanging());
    const client = createClient({ ...BASE, fetch, retry: fast });
    const controller = new AbortController();
    const call = client.GET("/api/v4/outsource_cases/{id}", {
      params: { path: { id: 1 } },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("caller gave up")), 10);
    await expect(call).rejects.toThrow("caller gave up");
    expect(sent).toHaveLength(1);
  });

  it("lets the caller abort after the answer without an unhandled rejection", async () => {
    const { fetch } = recordingFetch(() => Response.json({ id: 1 }));
    const controller = new AbortController();
    const client = createClient({ ...BASE, fetch });
    const { data } = await client.GET("/api/v4/outsource_cases/{id}", {
      params: { path: { id: 1 } },
      signal: controller.signal,
    });
    controller.abort(new Error("late abort"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(data).toEqual({ id: 1 });
  });
});
