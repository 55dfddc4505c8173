// Requests the proxy refuses for their head, in the service's error shape (A on manual verification,
// B elsewhere) and with the connection closed: no Host, two Hosts, more than 1,000 headers (Node kept
// the first 1,000 and dropped the rest without a word, a Host among them), an expectation other than
// 100-continue (Node answered a bare 417 and kept the connection), CONNECT (Node closed the
// connection without a word). None reaches the service, nor does a request pipelined after it. The
// first four are refused by the servers' shared plumbing (src/server's headRefusal), CONNECT by the proxy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REQUEST_HEADERS } from "../../src/server/index.js";
import { sendAndRead, startProxyOverRawUpstream } from "./support/raw-upstream.js";

let upstream: Awaited<ReturnType<typeof startProxyOverRawUpstream>>["upstream"];
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ upstream, port, close } = await startProxyOverRawUpstream());
});

afterAll(() => close());

/** `n` header lines of the client's own. */
const many = (n: number) => Array.from({ length: n }, (_, i) => `X-H${i}: v\r\n`).join("");
const NEXT = "GET /api/v4/outsource_cases/2 HTTP/1.1\r\nHost: x\r\n\r\n";

/** Send a request then a GET on the same connection; the answers and what the service read. */
async function send(head: string) {
  upstream.reset();
  const { raw, statuses } = await sendAndRead(port, `${head}${NEXT}`, ["GET", "GET"]);
  return { raw, statuses, seen: upstream.seen };
}

const body = (raw: string) =>
  JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4, raw.indexOf("}HTTP") + 1 || undefined));

describe.each([
  ["/api/v4/outsource_cases/1", "B"],
  ["/api/v2/manual_eidv/create", "A"],
])("on %s (shape %s)", (path, shape) => {
  it.each([
    ["no Host header", `GET ${path} HTTP/1.1\r\n\r\n`, 400],
    ["two Host headers", `GET ${path} HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n`, 400],
    ["a Host after 1,000 headers", `GET ${path} HTTP/1.1\r\n${many(1000)}Host: x\r\n\r\n`, 431],
    ["1,001 headers", `GET ${path} HTTP/1.1\r\nHost: x\r\n${many(1000)}\r\n`, 431],
    ["Expect: 200-ok", `GET ${path} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n`, 417],
    [
      "Expect: 200-ok with a body",
      `POST ${path} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: ${NEXT.length}\r\n\r\n${NEXT}`,
      417,
    ],
  ])("%s is refused in the service's shape and the connection closed", async (_name, head, status) => {
    const got = await send(head);
    expect(got.seen).toEqual([]);
    expect(got.statuses, got.raw).toEqual([status]);
    expect(got.raw).toMatch(/\r\nconnection: close\r\n/i);
    const error = body(got.raw);
    if (shape === "A")
      expect(error).toMatchObject({ error_type: "PROXY_REQUEST", metadata: { api_version: "v2" } });
    else expect(error).toMatchObject({ error_code: "PROXY_REQUEST" });
    expect(typeof error.message).toBe("string");
  });
});

describe("CONNECT", () => {
  it("gets 405 in the service's shape, the connection closed; Node closed it without a word", async () => {
    const got = await send("CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n");
    expect(got.seen).toEqual([]);
    expect(got.statuses, got.raw).toEqual([405]);
    expect(got.raw).toMatch(/\r\nconnection: close\r\n/i);
    expect(body(got.raw)).toMatchObject({ error_code: "PROXY_REQUEST" });
  });
});

describe("requests within the limits are forwarded whole", () => {
  it(`passes on ${MAX_REQUEST_HEADERS} headers, every one`, async () => {
    const got = await send(
      `GET /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n${many(MAX_REQUEST_HEADERS - 1)}\r\n`,
    );
    expect(got.statuses).toEqual([200, 200]);
    const names = got.seen[0]?.headers.map(([name]) => name) ?? [];
    expect(names.filter((n) => n.startsWith("X-H"))).toHaveLength(MAX_REQUEST_HEADERS - 1);
  });

  it("passes on Expect: 100-continue, and an HTTP/1.0 request without Host", async () => {
    const continued = await send(
      "POST /api/v4/pep_checks HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
    );
    expect(continued.seen.map((r) => r.body.toString())).toEqual(["hi", ""]);
    upstream.reset();
    const old = await sendAndRead(port, "GET /api/v4/outsource_cases/1 HTTP/1.0\r\n\r\n", ["GET"]);
    expect(old.statuses).toEqual([200]);
    expect(upstream.seen).toHaveLength(1);
  });
});
