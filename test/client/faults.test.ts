// Misbehaving servers over real sockets: bodies that stall or never come, connections reset before or
// during the answer, JSON that is not JSON, redirects elsewhere. Whatever the server does, every call
// settles, no credential reaches another origin, and no error message quotes what the server sent.
import type { ServerResponse } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiRequestError, createClient, type IdvClient, TimeoutError } from "../../src/index.js";
import { CANARIES, containsCanary } from "../support/hostile.js";
import { CREDENTIAL_HEADERS, type LoopbackServer, startServer } from "./servers.js";

const KEY = "faults-key-0001";
const SECRET = "faults-secret-0001";
const CANARY = CANARIES[0];
const TIMEOUT = 150;

/** What the service does with the next request. */
type Behaviour =
  | "stall-before-headers"
  | "stall-mid-body"
  | "drip-past-deadline"
  | "reset-before-headers"
  | "reset-mid-body"
  | "bad-json"
  | "bad-json-chunked"
  | "redirect-elsewhere";
const BEHAVIOURS: Behaviour[] = [
  "stall-before-headers",
  "stall-mid-body",
  "drip-past-deadline",
  "reset-before-headers",
  "reset-mid-body",
  "bad-json",
  "bad-json-chunked",
  "redirect-elsewhere",
];

let service: LoopbackServer;
let other: LoopbackServer;
let behaviour: Behaviour = "bad-json";
let contentType = "application/json";
const open = new Set<ServerResponse>();

/** A body that starts like the service's answer and carries a canary. */
const partial = `{"id":1,"reference":"${CANARY}","note":"`;

function misbehave(res: ServerResponse): void {
  const socket = res.socket;
  switch (behaviour) {
    case "stall-before-headers":
      open.add(res);
      return;
    case "stall-mid-body":
      open.add(res);
      res.writeHead(200, { "Content-Type": contentType, "Content-Length": 10_000 });
      res.write(partial);
      return;
    case "drip-past-deadline": {
      // A byte every 40 ms: each arrives well within any idle timeout, the whole never within the deadline.
      open.add(res);
      res.writeHead(200, { "Content-Type": contentType });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 40);
      res.write(partial);
      return;
    }
    case "reset-before-headers":
      socket?.resetAndDestroy();
      return;
    case "reset-mid-body":
      res.writeHead(200, { "Content-Type": contentType, "Content-Length": 10_000 });
      res.write(partial, () => socket?.resetAndDestroy());
      return;
    case "bad-json": {
      const text = `${CANARY} is not JSON {"a":1}`;
      res.writeHead(200, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case "bad-json-chunked":
      res.writeHead(200, { "Content-Type": contentType });
      res.end(`{"reference":"${CANARY}",}`);
      return;
    case "redirect-elsewhere":
      res.writeHead(307, { Location: `${other.origin}/steal?token=${CANARY}` });
      res.end(CANARY);
      return;
  }
}

beforeAll(async () => {
  service = await startServer((_request, res) => misbehave(res));
  other = await startServer((_request, res) => res.end("{}"));
});
afterAll(async () => {
  for (const res of open) res.destroy();
  await service.close();
  await other.close();
});

const options = { baseUrl: "", apiKey: KEY, secret: SECRET };
const clientWith = (extra: object = {}): IdvClient =>
  createClient({ ...options, baseUrl: service.origin, timeoutMs: TIMEOUT, ...extra });

const pepBody = { reference: "pep-1", firstname: "A", lastname: "B", date_of_birth: "02/03/1990" };

/** Every message of an error and of its causes. */
function messages(error: unknown): string {
  const out: string[] = [];
  for (let e = error, n = 0; e && n < 5; e = (e as { cause?: unknown }).cause, n++) {
    out.push(String(e), (e as { message?: string }).message ?? "", (e as { stack?: string }).stack ?? "");
  }
  return out.join("\n");
}

/** Read a stream to its end (or its error). */
async function drain(stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  for (;;) if ((await reader.read()).done) return;
}

const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe("a body that stalls after the headers", () => {
  it("ends in a TimeoutError naming the call, not the body", async () => {
    behaviour = "stall-mid-body";
    // Long enough for the headers to arrive on a busy machine: the message tells headers from body.
    const deadline = 2_000;
    const client = clientWith({ timeoutMs: deadline });
    const error = await client.POST("/api/v4/pep_checks", { body: pepBody }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      `POST /api/v4/pep_checks got no complete response within ${deadline} ms`,
    );
  });

  it("ends a stream read in a TimeoutError by default", async () => {
    behaviour = "stall-mid-body";
    contentType = "application/pdf";
    try {
      const { stream } = await clientWith().downloadStream("get", "/api/v4/pdf/pep_checks/{id}", {
        params: { path: { id: 1 } },
      });
      await expect(drain(stream)).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      contentType = "application/json";
    }
  });

  it('leaves a stream to the caller\'s pace with streamTimeout: "headers"', async () => {
    behaviour = "stall-mid-body";
    contentType = "application/pdf";
    try {
      const { stream } = await clientWith({ streamTimeout: "headers" }).downloadStream(
        "get",
        "/api/v4/pdf/pep_checks/{id}",
        { params: { path: { id: 1 } } },
      );
      const reader = stream.getReader();
      expect((await reader.read()).done).toBe(false);
      // Well past the deadline, the next read is still waiting for the server rather than failed.
      const next = reader.read();
      const outcome = await Promise.race([
        settled(next),
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), TIMEOUT * 3)),
      ]);
      expect(outcome).toBe("still waiting");
      await reader.cancel();
    } finally {
      contentType = "application/json";
    }
  });

  it("is bounded under the default options too (30 s, whole request)", async () => {
    behaviour = "stall-mid-body";
    const client = createClient({ ...options, baseUrl: service.origin });
    for (const res of open) res.destroy();
    open.clear();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const call = settled(client.POST("/api/v4/pep_checks", { body: pepBody }));
      // The headers arrive over the real socket; then only the client's clock moves.
      await vi.waitFor(() => expect(open.size).toBeGreaterThan(0), { interval: 5 });
      await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(29_000);
      const early = await Promise.race([call, Promise.resolve("pending")]);
      expect(early).toBe("pending");
      vi.advanceTimersByTime(1_001);
      const outcome = await call;
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(TimeoutError);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a connection reset", () => {
  it.each(["reset-before-headers", "reset-mid-body"] as const)("%s rejects at once", async (what) => {
    behaviour = what;
    // A deadline far beyond the reset: on a busy machine the 150 ms one could fire first.
    const error = await clientWith({ retry: false, timeoutMs: 60_000 })
      .POST("/api/v4/pep_checks", { body: pepBody })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(containsCanary(messages(error))).toBe(false);
  });
});

describe("a 200 whose body is not JSON", () => {
  it.each(["bad-json", "bad-json-chunked"] as const)(
    "(%s) raises a SyntaxError that quotes nothing of the body",
    async (what) => {
      behaviour = what;
      const error = await clientWith()
        .POST("/api/v4/pep_checks", { body: pepBody })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SyntaxError);
      expect((error as Error).message).toBe(
        "POST /api/v4/pep_checks: the response (HTTP 200) is not valid JSON",
      );
      expect(containsCanary(messages(error))).toBe(false);
    },
  );
});

describe("whatever the server does", () => {
  const CALLS = [
    (c: IdvClient) => c.POST("/api/v2/manual_eidv", { body: { metadata: { reference: "m" } } as never }),
    (c: IdvClient) => c.POST("/api/v4/pep_checks", { body: pepBody }),
    (c: IdvClient) => c.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } }),
    async (c: IdvClient) => {
      const { stream } = await c.downloadStream("get", "/api/v4/pdf/pep_checks/{id}", {
        params: { path: { id: 1 } },
      });
      await drain(stream);
    },
  ];

  it("every call settles, nothing reaches another origin, no error quotes the server", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...BEHAVIOURS),
        fc.constantFrom(...CALLS.keys()),
        fc.constantFrom("application/json", "application/pdf"),
        async (what, index, type) => {
          behaviour = what;
          contentType = type;
          other.received.length = 0;
          const client = clientWith({ retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
          const started = performance.now();
          const outcome = await settled((CALLS[index] as (c: IdvClient) => Promise<unknown>)(client));
          // Two attempts at most, each bounded by the deadline, plus scheduling slack.
          expect(performance.now() - started).toBeLessThan(TIMEOUT * 2 + 1_000);
          expect(other.received.flatMap((r) => CREDENTIAL_HEADERS.filter((h) => h in r.headers))).toEqual([]);
          expect(other.received).toEqual([]);
          if (!outcome.ok) expect(containsCanary(messages(outcome.error))).toBe(false);
          if (what === "redirect-elsewhere")
            expect(outcome.ok ? undefined : outcome.error).toBeInstanceOf(ApiRequestError);
          if (what.startsWith("stall") || what.startsWith("drip")) expect(outcome.ok).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
    contentType = "application/json";
  });
});
