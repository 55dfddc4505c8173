// Network failures reach the caller as an IdvConnectionError naming the call, the host and the
// cause, never a credential nor a value of the request; service errors name the contract's code.
import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiRequestError, createClient, IdvConnectionError, TimeoutError, unwrap } from "../../src/index.js";

const KEY = "conn-key-CANARY-0001";
const SECRET = "conn-secret-CANARY-0002";
const QUERY_VALUE = "CANARY-query-0003";

/** Everything a logger would print of an error: message, stack, causes and own properties. */
const printed = (error: unknown): string => `${String(error)}\n${inspect(error, { depth: 10 })}`;
const leaks = (text: string): boolean => /CANARY/.test(text);

const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error("the call succeeded"),
    (error: unknown) => error,
  );

/** A loopback port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A search by a query value, a GET that the client retries: the query must never be printed. */
const search = (baseUrl: string, extra: object = {}) =>
  createClient({ baseUrl, apiKey: KEY, secret: SECRET, retry: false, ...extra }).GET(
    "/api/v4/outsource_cases/{id}",
    { params: { path: { id: 7 }, query: { reference: QUERY_VALUE } } } as never,
  );

describe("a network failure", () => {
  it("is an IdvConnectionError naming the call, the host and the cause when nothing listens", async () => {
    const port = await closedPort();
    const error = await failure(search(`http://127.0.0.1:${port}`));
    expect(error).toBeInstanceOf(IdvConnectionError);
    const { message, host, code } = error as IdvConnectionError;
    expect({ host, code }).toEqual({ host: `127.0.0.1:${port}`, code: "ECONNREFUSED" });
    expect(message).toBe(
      `GET /api/v4/outsource_cases/{id}: the connection to 127.0.0.1:${port} failed: connection refused (ECONNREFUSED)`,
    );
    // fetch's own error stays reachable as the cause, for debugging.
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(leaks(printed(error))).toBe(false);
  });

  it("is retried for a GET, and raised once the retries are spent", async () => {
    const port = await closedPort();
    let calls = 0;
    const counting = (input: Request, init?: RequestInit) => {
      calls++;
      return fetch(input, init);
    };
    const error = await failure(
      search(`http://127.0.0.1:${port}`, { fetch: counting, retry: { retries: 2, baseDelayMs: 1 } }),
    );
    expect(error).toBeInstanceOf(IdvConnectionError);
    expect(calls).toBe(3);
  });

  it("says 'network error' for a fetch that rejects without a cause", async () => {
    const bare = () => Promise.reject(new TypeError("fetch failed"));
    const error = await failure(search("https://idv.example.com", { fetch: bare }));
    expect(error).toBeInstanceOf(IdvConnectionError);
    expect((error as Error).message).toBe(
      "GET /api/v4/outsource_cases/{id}: the connection to idv.example.com failed: network error",
    );
  });

  it("quotes no cause's own words, only a code shaped like one", async () => {
    const cause = Object.assign(new Error(`connect to /x?reference=${QUERY_VALUE}`), {
      code: `E ${QUERY_VALUE}`,
    });
    const hostile = () => Promise.reject(new TypeError("fetch failed", { cause }));
    const error = (await failure(search("https://idv.example.com", { fetch: hostile }))) as Error;
    expect(error).toBeInstanceOf(IdvConnectionError);
    expect(leaks(error.message)).toBe(false);
    expect((error as IdvConnectionError).code).toBeUndefined();
  });

  it("leaves a timeout a TimeoutError and the caller's abort its own error", async () => {
    const never = (_input: Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new TypeError("fetch failed"))),
      );
    expect(await failure(search("https://idv.example.com", { fetch: never, timeoutMs: 20 }))).toBeInstanceOf(
      TimeoutError,
    );
    const controller = new AbortController();
    controller.abort(new Error("stopped by the caller"));
    const client = createClient({ baseUrl: "https://idv.example.com", apiKey: KEY, secret: SECRET });
    const aborted = await failure(
      client.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 7 } }, signal: controller.signal }),
    );
    expect(aborted).not.toBeInstanceOf(IdvConnectionError);
  });
});

describe("a connection that breaks off during the answer", () => {
  let server: Server;
  let origin = "";
  beforeAll(async () => {
    // Headers and half the promised body, then the connection ends.
    server = createHttpServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
      // Ended once the bytes are handed to the system: the answer's start always arrives first.
      res.write('{"id": 7, "reference": "', () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is an IdvConnectionError naming the host, read whole or as a stream", async () => {
    const error = await failure(search(origin));
    expect(error).toBeInstanceOf(IdvConnectionError);
    expect((error as IdvConnectionError).host).toBe(new URL(origin).host);
    expect(leaks(printed(error))).toBe(false);
    const { data } = await createClient({ baseUrl: origin, apiKey: KEY, secret: SECRET }).GET(
      "/api/v4/outsource_cases/{id}",
      { params: { path: { id: 7 } }, parseAs: "stream" },
    );
    const reader = (data as ReadableStream<Uint8Array>).getReader();
    const streamed = await failure(
      (async () => {
        while (!(await reader.read()).done);
      })(),
    );
    expect(streamed).toBeInstanceOf(IdvConnectionError);
    expect((streamed as Error).message).toMatch(
      /^GET \/api\/v4\/outsource_cases\/\{id\}: the connection to 127\.0\.0\.1:\d+ failed: /,
    );
  });
});

describe("a service error's message", () => {
  const answering = (status: number, body: object) => () => Promise.resolve(Response.json(body, { status }));

  it("names the code when the contract names it", async () => {
    const result = await search("https://idv.example.com", {
      fetch: answering(400, { error_code: "ALREADY_ARCHIVED", message: "Archived." }),
    });
    expect(() => unwrap(result)).toThrow(
      /^GET \/api\/v4\/outsource_cases\/\{id\} failed with HTTP 400 ALREADY_ARCHIVED$/,
    );
  });

  it("leaves out a code the contract does not name (it may be a value the request sent)", async () => {
    const result = await search("https://idv.example.com", {
      fetch: answering(422, { error_type: "AB1234567CANARY", message: "AB1234567CANARY is invalid" }),
    });
    const error = (await failure(Promise.resolve().then(() => unwrap(result)))) as ApiRequestError;
    expect(error.message).toBe("GET /api/v4/outsource_cases/{id} failed with HTTP 422");
    expect(error.error.code).toBe("AB1234567CANARY");
  });
});
