// idv-contract/msw from the sources: setupServer(...sandboxHandlers(sandbox, { baseUrl })) answers a
// base URL's requests (and the sandbox's own url, which its answers name) from an in-process sandbox,
// and leaves every other origin to MSW's unhandled-request rule. A body is read as createSandbox's
// fetch reads one (within its limit, and the caller's signal), and MSW's clone of the request, a
// tee of its body, holds none of it.
import { RequestHandler } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type InProcessSandbox } from "../../sandbox/index.js";
import { sandboxHandlers } from "../../src/msw/index.js";
import { createClient } from "../../src/index.js";
import { abortOf, type CountedStream, countedStream, endless } from "./body-streams.js";

const baseUrl = "https://idv.example.test";
let sandbox: InProcessSandbox;
let server: ReturnType<typeof setupServer>;
beforeAll(async () => {
  sandbox = await createSandbox();
  server = setupServer(...sandboxHandlers(sandbox, { baseUrl }));
  server.listen({ onUnhandledRequest: "error" });
});
afterAll(async () => {
  server?.close();
  await sandbox?.close();
});

describe("sandboxHandlers", () => {
  it("answers the base URL's requests from the sandbox, on the global fetch", async () => {
    const idv = createClient({ baseUrl, apiKey: sandbox.key, secret: sandbox.secret });
    const created = await idv.POST("/api/v2/send_text", {
      body: { reference: "msw", firstname: "Mere", lastname: "Tane", contact_phone: "64211234567" },
    });
    expect(created.response.status).toBe(200);
    const id = created.data?.transaction_id as string;
    // The record is the sandbox's: its control API, on the sandbox's own url, knows it.
    expect((await fetch(`${sandbox.url}/_sandbox/biometric_verifications/${id}`)).status).toBe(200);
    const wrong = createClient({ baseUrl, apiKey: sandbox.key, secret: "not-the-secret" });
    const refused = await wrong.POST("/api/v2/send_text", { body: { reference: "msw" } });
    expect(refused.response.status).toBe(401);
  });

  it("leaves other origins alone", async () => {
    await expect(fetch("https://elsewhere.example.test/api/v2/send_text")).rejects.toThrow();
  });

  it("refuses a base URL that is not an origin, saying which option", () => {
    expect(() => sandboxHandlers(sandbox, { baseUrl: "https://idv.example.test/v2" })).toThrow(
      /baseUrl must be an origin alone/,
    );
    expect(() => sandboxHandlers({} as InProcessSandbox)).toThrow(/createSandbox/);
  });
});

const CONTROL_LIMIT = 64 * 1024;
const CHUNK = 8 * 1024;

/** A POST of `stream` to the base URL's control API on the global fetch (MSW's), with `signal`. */
const postStream = (stream: ReadableStream<Uint8Array>, signal?: AbortSignal) =>
  fetch(`${baseUrl}/_sandbox/receivers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: stream,
    duplex: "half",
    ...(signal ? { signal } : {}),
  } as RequestInit);

/**
 * The bytes MSW's clone of `request` holds: what a reader of it gets, less what reading it pulled
 * from the client's stream (its tee reads the source on for a side still open).
 */
async function heldByClone(request: Request, body: CountedStream): Promise<number> {
  const clone = RequestHandler.cache.get(request)?.body;
  if (!clone) return 0;
  const before = body.pulled();
  let read = 0;
  const reader = clone.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return read - (body.pulled() - before);
    read += value.byteLength;
  }
}

/** The requests MSW hands to its handlers while `run` runs. */
async function requestsSeen(run: () => Promise<unknown>): Promise<Request[]> {
  const seen: Request[] = [];
  const listener = ({ request }: { request: Request }) => void seen.push(request);
  server.events.on("request:start", listener);
  try {
    await run();
  } finally {
    server.events.removeListener("request:start", listener);
  }
  return seen;
}

describe("sandboxHandlers, given a hostile body", () => {
  it("refuses an endless body at the limit, and MSW's clone of it holds no byte", async () => {
    // Endless but for a cap of four limits, so that a reader with no limit ends too (and fails here).
    const body = countedStream(endless(CHUNK, 4 * CONTROL_LIMIT));
    let status = 0;
    const [request] = await requestsSeen(async () => {
      status = (await postStream(body.stream)).status;
    });
    expect(status).toBe(413);
    // MSW pipes the body through a stream of its own, which may read a chunk ahead.
    expect(body.pulled()).toBeLessThanOrEqual(CONTROL_LIMIT + 2 * CHUNK);
    expect(await heldByClone(request as Request, body)).toBe(0);
    // Both sides of MSW's tee given up: the client's stream is cancelled, and read no more.
    await body.whenCancelled;
  });

  it("stops reading when the caller's signal aborts, and the client's stream is cancelled", async () => {
    const abort = abortOf({ at: 3, reason: "timeout" });
    const body = countedStream(
      { chunk: CHUNK, total: 2 * CHUNK, enqueue: "sync", ending: "stall" },
      abort.onPull,
    );
    let failure: unknown;
    const [request] = await requestsSeen(async () => {
      failure = await postStream(body.stream, abort.signal).catch((error: unknown) => error);
    });
    expect(failure).toBe(abort.reason());
    await body.whenCancelled;
    expect(await heldByClone(request as Request, body)).toBe(0);
  }, 10_000);
});
