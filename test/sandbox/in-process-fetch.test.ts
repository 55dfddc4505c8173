// createSandbox()'s fetch takes what fetch takes: a Request given as it is (with no init, or with
// only the `redirect` and `signal` a client adds) is read without being copied, as copying costs
// more than most answers; any other init is applied as fetch applies it; a used body is refused.
// A body is read as the HTTP server reads one: within its limit (then refused, and the stream
// cancelled), a deadline (408), and the caller's signal (the fetch rejects with its reason), letting
// the event loop turn while a stream that enqueues synchronously is read.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSandbox, type InProcessSandbox } from "../../sandbox/index.js";
import { MAX_SERVICE_BODY } from "../../src/server/pipeline.js";
import { abortOf, countedStream, endless } from "./body-streams.js";

let sandbox: InProcessSandbox | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * Count the Requests made while `run` answers the one `given` makes (under a counting global Request,
 * the one the adapter finds; `given` is made with it, uncounted).
 */
async function requestsMadeBy(
  given: () => Request,
  run: (request: Request) => Promise<Response>,
): Promise<{ made: number; response: Response }> {
  const Original = globalThis.Request;
  let made = 0;
  vi.stubGlobal(
    "Request",
    class CountedRequest extends Original {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(input, init);
        made++;
      }
    },
  );
  try {
    const request = given();
    made = 0;
    const response = await run(request);
    return { made, response };
  } finally {
    vi.unstubAllGlobals();
  }
}

describe("createSandbox's fetch", () => {
  it("reads a Request given with no init, or only redirect and signal, as it is", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const fetch = sandbox.fetch;
    const url = `${sandbox.url}/_sandbox/clock`;
    for (const init of [undefined, { redirect: "manual" as const, signal: new AbortController().signal }]) {
      const { made, response } = await requestsMadeBy(
        () => new Request(url),
        (request) => fetch(request, init),
      );
      expect(made).toBe(0);
      expect(response.status).toBe(200);
      expect(await response.json()).toHaveProperty("now");
    }
  });

  it("applies any other init as fetch does, and reads the body of a given Request once", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const fetch = sandbox.fetch;
    const url = `${sandbox.url}/_sandbox/receivers`;
    const body = JSON.stringify({ url: "https://receiver.example/hook" });
    const headers = { "content-type": "application/json" };
    // The init's method wins over the Request's: a POST, as fetch would send.
    const { made, response } = await requestsMadeBy(
      () => new Request(url),
      (request) => fetch(request, { method: "POST", headers, body }),
    );
    expect(made).toBe(1);
    expect(response.status).toBe(201);
    const posted = new Request(url, { method: "POST", headers, body });
    expect((await fetch(posted, { redirect: "manual" })).status).toBe(201);
    expect(posted.bodyUsed).toBe(true);
    await expect(fetch(posted)).rejects.toThrow(TypeError);
    // An init with a redirect fetch does not know is refused as fetch refuses it.
    await expect(fetch(new Request(url), { redirect: "elsewhere" as RequestRedirect })).rejects.toThrow(
      TypeError,
    );
    const listed = (await (await fetch(url)).json()) as { receivers: unknown[] };
    expect(listed.receivers).toHaveLength(2);
  });
});

describe("createSandbox's fetch answers JSON", () => {
  it("with a Content-Length of its UTF-8 bytes, not of its characters", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const created = await sandbox.fetch(`${sandbox.url}/api/v2/send_text`, {
      method: "POST",
      headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
      body: JSON.stringify({
        reference: "ā-1",
        firstname: "Mārama",
        lastname: "Tāne",
        contact_phone: "64211234567",
      }),
    });
    expect(created.status).toBe(200);
    const { transaction_id } = (await created.json()) as { transaction_id: string };
    const record = await sandbox.fetch(`${sandbox.url}/_sandbox/biometric_verifications/${transaction_id}`);
    expect(record.headers.get("content-type")).toBe("application/json");
    const bytes = new Uint8Array(await record.arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toContain(`"reference":"ā-1"`);
    expect(Number(record.headers.get("content-length"))).toBe(bytes.length);
  });
});

const SERVICE = "/api/v2/send_text";
const CONTROL = "/_sandbox/receivers";
const CONTROL_LIMIT = 64 * 1024;
const CHUNK = 64 * 1024;

/** A POST of `stream` to `path` of the sandbox, with the service's credentials and `signal`. */
function postStream(path: string, stream: ReadableStream<Uint8Array>, signal?: AbortSignal): Request {
  return new Request(`${(sandbox as InProcessSandbox).url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
    body: stream,
    duplex: "half",
    ...(signal ? { signal } : {}),
  } as RequestInit);
}

describe("createSandbox's fetch reads a body within its limit, deadline and signal", () => {
  it("refuses an endless body at the limit, read no further than a chunk past it, and cancels it", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    // What the service answers to a body one byte over its limit, given whole.
    const whole = await sandbox.fetch(`${sandbox.url}${SERVICE}`, {
      method: "POST",
      headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
      body: new Uint8Array(MAX_SERVICE_BODY + 1),
    });
    for (const [path, limit, status] of [
      [SERVICE, MAX_SERVICE_BODY, whole.status],
      [CONTROL, CONTROL_LIMIT, 413],
    ] as const) {
      // Endless but for a cap of four limits, so that a reader with no limit ends too (and fails here).
      const body = countedStream(endless(CHUNK, 4 * limit));
      const answer = await sandbox.fetch(postStream(path, body.stream));
      expect(answer.status, path).toBe(status);
      expect(body.pulled(), path).toBeLessThanOrEqual(limit + CHUNK);
      await body.whenCancelled;
      const pulled = body.pulled();
      await new Promise((resolve) => setImmediate(resolve));
      expect(body.pulled(), path).toBe(pulled);
    }
  });

  it("rejects with the signal's reason when it aborts mid-body, and cancels the body", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    for (const reason of ["default", "timeout"] as const) {
      const abort = abortOf({ at: 2, reason });
      // One chunk, then a body that never comes: only the signal can end this fetch.
      const body = countedStream({ chunk: 10, total: 10, enqueue: "sync", ending: "stall" }, abort.onPull);
      const failure = await sandbox.fetch(postStream(CONTROL, body.stream, abort.signal)).catch((e) => e);
      expect(failure).toBe(abort.reason());
      expect((abort.reason() as DOMException).name).toBe(
        reason === "timeout" ? "TimeoutError" : "AbortError",
      );
      await body.whenCancelled;
    }
  }, 10_000);

  it("rejects at once with a signal aborted before it is called, and does nothing", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const abort = abortOf({ at: "before", reason: "timeout" });
    const url = `${sandbox.url}${CONTROL}`;
    const headers = { "content-type": "application/json" };
    const body = JSON.stringify({ url: "https://receiver.example/hook" });
    // A Request read as it is, its signal in the init (requestOf's fast path), and one in the Request.
    await expect(
      sandbox.fetch(new Request(url, { method: "POST", headers, body }), {
        signal: abort.signal as AbortSignal,
      }),
    ).rejects.toBe(abort.reason());
    await expect(
      sandbox.fetch(new Request(url, { method: "POST", headers, body, signal: abort.signal as AbortSignal })),
    ).rejects.toBe(abort.reason());
    const listed = (await (await sandbox.fetch(url)).json()) as { receivers: unknown[] };
    expect(listed.receivers).toEqual([]);
  });

  it("honours a signal given in the init beside a Request read as it is", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    const abort = abortOf({ at: 2, reason: "default" });
    const body = countedStream({ chunk: 10, total: 10, enqueue: "sync", ending: "stall" }, abort.onPull);
    const fetched = sandbox.fetch(postStream(CONTROL, body.stream), { signal: abort.signal as AbortSignal });
    expect(await fetched.catch((e) => e)).toBe(abort.reason());
    await body.whenCancelled;
  }, 10_000);

  it("lets the event loop turn while it reads a body enqueued synchronously, byte by byte", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    // Just over the limit: a reader that never yields reads it all and answers 413 before this turn.
    const body = countedStream(endless(1, CONTROL_LIMIT + 1));
    const controller = new AbortController();
    const fetched = sandbox.fetch(postStream(CONTROL, body.stream, controller.signal));
    setImmediate(() => controller.abort());
    expect(await fetched.catch((e) => e)).toBe(controller.signal.reason);
    expect(body.pulled()).toBeLessThan(CONTROL_LIMIT);
  });

  it("fires a timer while a body of 1-byte chunks enqueued synchronously is read", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    // Twelve million reads to the limit: seconds, where a timer of 1 ms is due at once.
    const body = countedStream(endless(1, MAX_SERVICE_BODY + 1));
    const signal = AbortSignal.timeout(1);
    await expect(sandbox.fetch(postStream(SERVICE, body.stream, signal))).rejects.toMatchObject({
      name: "TimeoutError",
    });
    expect(body.pulled()).toBeLessThan(MAX_SERVICE_BODY);
  });

  it("rejects with a TypeError, as fetch does, when the body's stream fails or holds no bytes", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    for (const ending of ["error", "not-bytes"] as const) {
      const body = countedStream({ chunk: 8, total: 16, enqueue: "microtask", ending });
      await expect(sandbox.fetch(postStream(CONTROL, body.stream)), ending).rejects.toThrow(TypeError);
    }
  });

  it("answers a body that stops arriving with a 408 once its deadline (60 s) has passed", async () => {
    sandbox = await createSandbox({ key: "k", secret: "s" });
    let pulling: () => void = () => undefined;
    const pulled = new Promise<void>((resolve) => (pulling = resolve));
    const body = countedStream({ chunk: 10, total: 10, enqueue: "sync", ending: "stall" }, (n) => {
      if (n === 2) pulling();
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const fetched = sandbox.fetch(postStream(CONTROL, body.stream));
      await pulled;
      // The deadline is armed once the event loop has turned with the request unanswered.
      await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(59_999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(body.cancelled()).toBe(false);
      vi.advanceTimersByTime(1);
      const answer = await fetched;
      expect(answer.status).toBe(408);
      expect(await answer.json()).toEqual({
        error_code: "SANDBOX_ERROR",
        message: "The request took too long to arrive.",
      });
      expect(body.cancelled()).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  }, 10_000);
});
