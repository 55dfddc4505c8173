// Requests refused by the servers' shared plumbing (src/server) before the proxy's handler sees them.
// A head Node's parser refuses (both Content-Length and Transfer-Encoding, two Content-Lengths) is
// answered 400 in its path's shape, read from the request line in the bytes the parser failed on:
// before, no request was in flight, so every such answer had shape B. A request pipelined behind an
// answer that closes the connection (a target that is not a path) is not forwarded: before, the
// service got it, its answer could never be sent, and closing the proxy waited for it for ever.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendAndRead, startProxyOverRawUpstream } from "./support/raw-upstream.js";

let upstream: Awaited<ReturnType<typeof startProxyOverRawUpstream>>["upstream"];
let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ upstream, port, close } = await startProxyOverRawUpstream());
});

afterAll(() => close());

const HEADS = [
  [
    "both Content-Length and Transfer-Encoding",
    "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
  ],
  ["two Content-Lengths", "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello"],
] as const;

describe.each(["GET", "DELETE", "OPTIONS", "POST", "PUT"])("%s", (method) => {
  it.each(HEADS)("%s on manual verification: 400 in shape A", async (_name, rest) => {
    upstream.reset();
    const got = (
      await sendAndRead(port, `${method} /api/v2/manual_eidv HTTP/1.1\r\nHost: x\r\n${rest}`, ["GET", "GET"])
    ).raw;
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(upstream.seen).toEqual([]);
    const body = JSON.parse(got.slice(got.indexOf("\r\n\r\n") + 4));
    expect(body).toMatchObject({ error_type: "PROXY_REQUEST", metadata: { api_version: "v2" } });
  });

  it.each(HEADS)(
    "%s after another request in the same bytes: the refused request's shape",
    async (_name, rest) => {
      upstream.reset();
      const got = (
        await sendAndRead(
          port,
          `GET /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n\r\n${method} /api/v2/manual_eidv HTTP/1.1\r\nHost: x\r\n${rest}`,
          ["GET", "GET"],
        )
      ).raw;
      const last = got.slice(got.lastIndexOf("\r\n\r\n") + 4);
      expect(JSON.parse(last)).toMatchObject({ error_type: "PROXY_REQUEST" });
    },
  );
});

describe("behind an answer that closes the connection", () => {
  it("a pipelined request is not forwarded, and the proxy still closes", async () => {
    upstream.reset();
    const got = (
      await sendAndRead(
        port,
        "GET * HTTP/1.1\r\nHost: x\r\n\r\nPOST /api/v4/pep_checks HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi",
        ["GET", "GET"],
      )
    ).raw;
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(got.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(upstream.seen).toEqual([]);
  });
});
