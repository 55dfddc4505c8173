// A hostile service over real sockets, beyond faults.test.ts: credentials in a Location's user part,
// error answers and headers that carry personal data, and answers whose bodies are endless or expand
// to gigabytes, and answers that are not HTTP. No credential or canary reaches an error (nor its causes, as a
// logger prints them), and memory stays bounded in bytes.
import type { ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { inspect } from "node:util";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiRequestError,
  createClient,
  type IdvClient,
  IdvConnectionError,
  unwrap,
} from "../../src/index.js";
import { canary, containsCanary } from "../support/hostile.js";
import type { Handler, LoopbackServer } from "./servers.js";
import { startServer } from "./servers.js";

const KEY = "hostile-key-0001";
const SECRET = "hostile-secret-0001";
const REDIRECTS = [301, 302, 303, 307, 308] as const;
const pepBody = { reference: "pep-1", firstname: "A", lastname: "B", date_of_birth: "02/03/1990" };

let service: LoopbackServer;
let answer: Handler = (_request, res) => res.end();

beforeAll(async () => {
  service = await startServer((request, res, req) => answer(request, res, req));
});
afterAll(() => service.close());

const clientWith = (extra: object = {}): IdvClient =>
  createClient({ baseUrl: service.origin, apiKey: KEY, secret: SECRET, ...extra });

/** An error's message, stack, causes and own properties, as far as a logger would print them. */
function printed(error: unknown): string {
  const out: string[] = [];
  for (let e = error, n = 0; e && n < 5; e = (e as { cause?: unknown }).cause, n++) {
    out.push(String(e), (e as { stack?: string }).stack ?? "");
    for (const key of Object.getOwnPropertyNames(e)) {
      if (key !== "error") out.push(key, JSON.stringify((e as Record<string, unknown>)[key]) ?? "");
    }
  }
  return out.join("\n");
}

const failure = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error("the call succeeded"),
    (error: unknown) => error,
  );

/** The client's calls of each scheme and method that read a body whole. */
const CALLS = [
  (c: IdvClient) => c.POST("/api/v4/pep_checks", { body: pepBody }),
  (c: IdvClient) => c.GET("/api/v4/outsource_cases/{id}", { params: { path: { id: 1 } } }),
  (c: IdvClient) =>
    c.POST("/api/v2/manual_eidv", {
      body: {
        metadata: { reference: "m-1" },
        individual: { first_name: "A", last_name: "B", date_of_birth: "1990-03-02" },
        address: { line_1: "1 High St", postcode: "AB1 2CD", country: "GBR", city: "London" },
      },
    }),
  (c: IdvClient) => c.download("get", "/api/v4/pdf/pep_checks/{id}", { params: { path: { id: 1 } } }),
];
const call = () => fc.constantFrom(...CALLS);

describe("a same-origin Location with a user or password", () => {
  it("is refused with an error that quotes neither the URL nor a credential", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...REDIRECTS),
        call(),
        canary(),
        fc.constantFrom("user", "password", "both"),
        async (status, send, secret, where) => {
          const user = where === "password" ? "" : encodeURIComponent(secret);
          const password = where === "user" ? "" : `:${encodeURIComponent(secret)}`;
          answer = (_request, res) => {
            res.writeHead(status, { Location: `http://${user}${password}@127.0.0.1:${service.port}/in` });
            res.end();
          };
          const before = service.received.length;
          const error = await failure(send(clientWith({ retry: false })));
          expect(error).toBeInstanceOf(ApiRequestError);
          expect((error as ApiRequestError).message).toMatch(
            /failed with HTTP 30\d: Location carries a user/,
          );
          const text = printed(error);
          expect(containsCanary(text)).toBe(false);
          expect(text).not.toContain(SECRET);
          expect(text).not.toContain(KEY);
          // Refused before a second request, and not retried.
          expect(service.received.length - before).toBe(1);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("an error answer after a same-origin redirect", () => {
  it("is named by unwrap after the call, never the path the Location chose", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...REDIRECTS), canary(), async (status, secret) => {
        answer = (request, res) => {
          if (request.url.startsWith("/moved/")) return void res.writeHead(404).end();
          res.writeHead(status, { Location: `/moved/${encodeURIComponent(secret)}` });
          res.end();
        };
        const result = await clientWith().GET("/api/v4/outsource_cases/{id}", {
          params: { path: { id: 1 } },
        });
        expect(result.response.url).toContain("/moved/");
        const error = await failure(Promise.resolve().then(() => unwrap(result)));
        expect((error as Error).message).toBe(
          "GET /api/v4/outsource_cases/{id} failed with HTTP 404: HTTP 404",
        );
        expect(containsCanary(printed(error))).toBe(false);
      }),
      { numRuns: 10 },
    );
  });
});

describe("an error answer", () => {
  /** A shape A or B error body whose message and code carry a canary. */
  const errorBody = () =>
    fc
      .tuple(fc.boolean(), canary(), fc.string({ maxLength: 8 }), fc.constantFrom("code", "message", "both"))
      .map(([shapeA, secret, text, where]) => {
        const message = where === "code" ? "Invalid." : `${text} ${secret} is invalid.`;
        const code = where === "message" ? "VALIDATION" : `${text}${secret}`;
        return shapeA ? { error_type: code, message, metadata: {} } : { error_code: code, message };
      });

  it("raises an ApiRequestError naming the call and the status, never the service's text", async () => {
    await fc.assert(
      fc.asyncProperty(
        errorBody(),
        // fetch itself fails a 407 (proxy authentication) as a network error.
        fc.integer({ min: 400, max: 599 }).filter((status) => status !== 407),
        call(),
        async (body, status, send) => {
          answer = (_request, res) => {
            res.writeHead(status, { "Content-Type": "application/json" });
            res.end(JSON.stringify(body));
          };
          const result = await send(clientWith({ retry: false })).then(
            (r) => r,
            (e: unknown) => e,
          );
          // openapi-fetch answers { error }; unwrap and the file helpers throw.
          const error =
            result instanceof Error ? result : failure(Promise.resolve().then(() => unwrap(result as never)));
          const thrown = await error;
          expect(thrown).toBeInstanceOf(ApiRequestError);
          const { message, error: classified } = thrown as ApiRequestError;
          // A code is quoted only when the contract names it: never the canary one.
          const code = body.error_type ?? body.error_code;
          const quoted = code === "VALIDATION" ? " VALIDATION" : "";
          expect(message).toMatch(
            new RegExp(`^((GET|POST) )?/api/\\S+ failed with HTTP ${status}${quoted}$`),
          );
          expect(containsCanary(printed(thrown))).toBe(false);
          // What the service said is still there for the caller to read.
          expect(classified.message).toBe(body.message);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("a download answered with another media type names the contract's, not the header", async () => {
    await fc.assert(
      fc.asyncProperty(canary(), async (secret) => {
        answer = (_request, res) => {
          res.writeHead(200, { "Content-Type": `text/html; name=${secret}` });
          res.end("<html></html>");
        };
        const error = await failure(CALLS[3]!(clientWith()));
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toBe(
          "GET /api/v4/pdf/pep_checks/{id} answered another Content-Type than the contract's application/pdf",
        );
        expect(containsCanary(printed(error))).toBe(false);
      }),
      { numRuns: 5 },
    );
  });
});

describe("an answer larger than the client reads whole", () => {
  const MAX = 256 * 1024;
  // A gzip of 80 MiB of zeros: about 80 kB on the wire, more than the default 64 MiB once decoded.
  const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024));
  let written = 0;

  /** Write 64 kB chunks for as long as the client reads them. */
  function endless(res: ServerResponse, status: number, type: string): void {
    written = 0;
    res.writeHead(status, { "Content-Type": type });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const more = () => {
      while (!res.destroyed && written < 1024 * 1024 * 1024) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
    };
    more();
  }

  type Body = "endless" | "endless-error" | "gzip-bomb" | "long-content-length";
  const BODIES: Body[] = ["endless", "endless-error", "gzip-bomb", "long-content-length"];
  const serve =
    (body: Body, type: string): Handler =>
    (_request, res) => {
      if (body === "endless") return endless(res, 200, type);
      if (body === "endless-error") return endless(res, 422, "application/json");
      if (body === "long-content-length") {
        res.writeHead(200, { "Content-Type": type, "Content-Length": MAX * 2 });
        return res.end(Buffer.alloc(MAX * 2, 0x20));
      }
      res.writeHead(200, { "Content-Type": type, "Content-Encoding": "gzip", "Content-Length": bomb.length });
      res.end(bomb);
    };

  it("is cut off with a RangeError naming the call, long before the deadline", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...BODIES), fc.constantFrom(...CALLS.keys()), async (body, index) => {
        const download = index === 3;
        answer = serve(body, download ? "application/pdf" : "application/json");
        // A RangeError, not the deadline's TimeoutError: the cap ended the call.
        const error = await failure(
          CALLS[index]!(clientWith({ maxResponseBytes: MAX, timeoutMs: 20_000, retry: false })),
        );
        expect(error).toBeInstanceOf(RangeError);
        expect((error as Error).message).toMatch(
          /^(GET|POST) \/api\/\S+: the response \(HTTP \d+\) is over 262144 bytes$/,
        );
        // The download under it was stopped: the server could not write much more than the limit.
        if (body.startsWith("endless")) expect(written).toBeLessThan(64 * 1024 * 1024);
      }),
      { numRuns: 20 },
    );
  });

  it("is cut off for a streamed download's error answer, which openapi-fetch reads whole", async () => {
    answer = serve("endless-error", "application/json");
    const call = clientWith({ maxResponseBytes: MAX, timeoutMs: 20_000 }).downloadStream(
      "get",
      "/api/v4/pdf/pep_checks/{id}",
      { params: { path: { id: 1 } } },
    );
    await expect(call).rejects.toThrow(
      "GET /api/v4/pdf/pep_checks/{id}: the response (HTTP 422) is over 262144 bytes",
    );
  });

  it("is bounded under the default options (64 MiB, decompressed)", async () => {
    answer = serve("gzip-bomb", "application/json");
    const error = await failure(CALLS[0]!(clientWith()));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe(
      "POST /api/v4/pep_checks: the response (HTTP 200) is over 67108864 bytes",
    );
  });

  it("leaves answers within the limit as they were, their URL kept", async () => {
    const value = { id: 7, note: "x".repeat(MAX - 100) };
    for (const chunked of [false, true]) {
      answer = (_request, res) => {
        const text = JSON.stringify(value);
        res.writeHead(chunked ? 404 : 200, {
          "Content-Type": "application/json",
          ...(chunked ? {} : { "Content-Length": Buffer.byteLength(text) }),
        });
        res.end(text);
      };
      const result = await clientWith({ maxResponseBytes: MAX }).GET("/api/v4/outsource_cases/{id}", {
        params: { path: { id: 7 } },
      });
      expect(result.response.url).toBe(`${service.origin}/api/v4/outsource_cases/7`);
      if (chunked) {
        expect(result.error).toEqual(value);
        expect(() => unwrap(result)).toThrow(
          /^GET \/api\/v4\/outsource_cases\/\{id\} failed with HTTP 404: HTTP 404$/,
        );
      } else expect(result.data).toEqual(value);
    }
  });

  it("does not limit a streamed download, which the caller reads at its own pace", async () => {
    answer = serve("long-content-length", "application/pdf");
    const { stream } = await clientWith({ maxResponseBytes: MAX }).downloadStream(
      "get",
      "/api/v4/pdf/pep_checks/{id}",
      { params: { path: { id: 1 } } },
    );
    expect((await new Response(stream).arrayBuffer()).byteLength).toBe(MAX * 2);
  });
});

describe("an answer that is not well-formed HTTP", () => {
  // undici's parser error keeps the bytes it failed on as `data`, printed with the error's cause.
  const MALFORMED = [
    "HTTP/1.1 200 OK\r\nContent-Type: {T}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n%PDF-\r\nZZ{C}\r\n",
    "HTTP/1.1 2{C}\r\n\r\n",
    "HTTP/9.9 200 OK\r\n{C}\r\n\r\n",
    "{C} 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: {C}\r\n\r\n",
    "HTTP/1.1 200 OK\r\n {C}: folded\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX-{C}\u0000: a\r\n\r\n",
  ];
  let raw = "";
  let origin = "";
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("data", () => socket.end(raw));
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });

  const drained = async (c: IdvClient) => {
    const { stream } = await c.downloadStream("get", "/api/v4/pdf/pep_checks/{id}", {
      params: { path: { id: 1 } },
    });
    await new Response(stream).arrayBuffer();
  };

  it("fails the call with an error whose causes quote none of it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...MALFORMED),
        fc.constantFrom(...CALLS, drained),
        canary(),
        fc.constantFrom("application/json", "application/pdf"),
        async (template, send, secret, type) => {
          raw = template.replace("{C}", secret).replace("{T}", type);
          const client = createClient({ baseUrl: origin, apiKey: KEY, secret: SECRET, retry: false });
          const error = await failure(send(client));
          expect(error).toBeInstanceOf(Error);
          const text = `${printed(error)}\n${inspect(error, { depth: 10 })}`;
          expect(containsCanary(text)).toBe(false);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("errors a streamed download with an error whose causes quote none of it", async () => {
    raw = (MALFORMED[0] as string).replace("{C}", "CANARY-SECRET-123").replace("{T}", "application/pdf");
    const error = await failure(drained(createClient({ baseUrl: origin, apiKey: KEY, secret: SECRET })));
    // The answer stops being HTTP mid-body: the connection failed, as the error says.
    expect(error).toBeInstanceOf(IdvConnectionError);
    expect(containsCanary(inspect(error, { depth: 10 }))).toBe(false);
  });
});
