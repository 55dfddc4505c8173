// Request smuggling through the proxy, with a raw socket on both sides: the client writes bytes, the
// service parses what arrives with a strict parser of its own. Whatever the method and however the
// client frames its body (chunked, a length the Connection header names as hop-by-hop, …), the
// service reads one request per client request, with the client's body; a body on GET, HEAD, DELETE
// or OPTIONS was forwarded unframed before, and read by the service as the next request.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRaw } from "../support/hostile.js";
import { sendAndRead, startProxyOverRawUpstream } from "./support/raw-upstream.js";

let upstream: Awaited<ReturnType<typeof startProxyOverRawUpstream>>["upstream"];
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ upstream, port, close } = await startProxyOverRawUpstream());
});

afterAll(() => close());

const METHODS = ["GET", "HEAD", "DELETE", "OPTIONS", "POST", "PUT"] as const;
const SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
const NEXT = "GET /api/v4/outsource_cases/2 HTTP/1.1\r\nHost: x\r\n\r\n";

/** A body in chunks of the given sizes (the rest in one), then the last chunk. */
function chunked(body: Buffer, sizes: number[] = []): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const size of [...sizes, body.length]) {
    const piece = body.subarray(at, at + size);
    at += piece.length;
    if (piece.length > 0)
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}

type Framing = "chunked" | "length" | "none";

/** A request to /api/v4/outsource_cases/1 with `body` framed as asked, and any extra header lines. */
function request(method: string, body: Buffer, framing: Framing, extra = "", sizes: number[] = []): Buffer {
  const head = `${method} /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n${extra}`;
  if (framing === "chunked")
    return Buffer.concat([Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n`), chunked(body, sizes)]);
  if (framing === "length")
    return Buffer.concat([Buffer.from(`${head}Content-Length: ${body.length}\r\n\r\n`), body]);
  return Buffer.from(`${head}\r\n`);
}

/** Send one request then a GET on the same connection; what the service read and what the client got. */
async function exchange(method: string, bytes: Buffer) {
  upstream.reset();
  const { raw, statuses } = await sendAndRead(port, Buffer.concat([bytes, Buffer.from(NEXT)]), [
    method,
    "GET",
  ]);
  return {
    statuses,
    seen: upstream.seen,
    errors: upstream.errors,
    raw,
  };
}

const FRAMINGS: [string, Framing, string][] = [
  ["a chunked body", "chunked", ""],
  ["a length that Connection names as hop-by-hop", "length", "Connection: Content-Length\r\n"],
  ["a chunked body whose Transfer-Encoding Connection names", "chunked", "Connection: Transfer-Encoding\r\n"],
  ["a length, Connection naming Host", "length", "Connection: Host\r\n"],
  [
    "a chunked body, Connection naming every framing and hop-by-hop header",
    "chunked",
    "Connection: Content-Length, Transfer-Encoding, Host, Keep-Alive, TE, Trailer, Upgrade\r\nTE: trailers\r\n",
  ],
  [
    "a length, Connection naming it in another case with spaces",
    "length",
    "Connection: keep-alive ,  CONTENT-LENGTH \r\n",
  ],
];

describe.each(METHODS)("%s", (method) => {
  it.each(FRAMINGS)(
    "%s reaches the service as one request with the client's body",
    async (_name, framing, extra) => {
      const got = await exchange(method, request(method, Buffer.from(SMUGGLED), framing, extra, [5]));
      expect(got.errors).toEqual([]);
      expect(got.seen.map((r) => `${r.method} ${r.target}`)).toEqual([
        `${method} /api/v4/outsource_cases/1`,
        "GET /api/v4/outsource_cases/2",
      ]);
      expect(got.seen[0]?.body.toString("latin1")).toBe(SMUGGLED);
      expect(got.statuses, got.raw).toEqual([200, 200]);
    },
  );

  it.each([
    [
      "both Content-Length and Transfer-Encoding",
      "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    ],
    ["two equal Content-Lengths", "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello"],
    ["two different Content-Lengths", "Content-Length: 5\r\nContent-Length: 3\r\n\r\nhello"],
    ["a Content-Length that is not a number", "Content-Length: 5x\r\n\r\nhello"],
    ["a coding besides chunked", "Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
  ])("%s is refused with 400 in the service's shape, the connection closed", async (_name, rest) => {
    const got = await exchange(
      method,
      Buffer.from(`${method} /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n${rest}`),
    );
    expect(got.seen).toEqual([]);
    // One answer: the connection ends with it, so the GET after it is never read as a request.
    expect(got.statuses, got.raw).toEqual([400]);
    expect(got.raw).toMatch(/\r\nconnection: close\r\n/i);
    // An answer to HEAD has no body (Node sends none, whatever is written).
    if (method !== "HEAD") expect(got.raw).toMatch(/"error_code":"PROXY_REQUEST"/);
  });
});

describe("any method, body, framing and Connection tokens", () => {
  it("the service reads exactly one request per client request, with the client's body", async () => {
    const tokens = [
      "Content-Length",
      "Transfer-Encoding",
      "Host",
      "Keep-Alive",
      "TE",
      "Trailer",
      "Upgrade",
      "X-Other",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS, "PATCH"),
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          fc
            .constantFrom(SMUGGLED, `${SMUGGLED}${SMUGGLED}`, "0\r\n\r\n", "\r\n\r\n")
            .map((s) => Buffer.from(s)),
        ),
        fc.constantFrom<Framing>("chunked", "length", "none"),
        fc.subarray(tokens),
        fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 4 }),
        async (method, body, framing, named, sizes) => {
          const sent = framing === "none" ? Buffer.alloc(0) : body;
          const extra = named.length > 0 ? `Connection: ${named.join(", ")}\r\n` : "";
          const got = await exchange(method, request(method, sent, framing, extra, sizes));
          expect(got.errors).toEqual([]);
          expect(got.seen.map((r) => r.target)).toEqual([
            "/api/v4/outsource_cases/1",
            "/api/v4/outsource_cases/2",
          ]);
          expect(got.seen[0]?.method).toBe(method);
          expect(got.seen[0]?.body.equals(sent)).toBe(true);
          expect(got.statuses).toEqual([200, 200]);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe("a body cut short", () => {
  it.each(METHODS)("%s: the rest never comes from another client's request", async (method) => {
    upstream.reset();
    // Client A promises 100 bytes, sends 10 and leaves; the service's connection must go with it.
    await sendRaw(
      port,
      `${method} /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789`,
      300,
      "127.0.0.1",
      100,
    );
    const next =
      "POST /api/v4/pep_checks HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n" + "b".repeat(200);
    const { statuses } = await sendAndRead(port, next, ["POST"]);
    expect(statuses).toEqual([200]);
    expect(upstream.seen.map((r) => `${r.method} ${r.target} ${r.body.length}`)).toEqual([
      "POST /api/v4/pep_checks 200",
    ]);
  });
});
