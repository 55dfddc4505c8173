// The proxy's framing, attacked from both sides: whatever the service answers or the client sends, the
// client gets an answer it can find the end of, and the service gets only framing Node made. Each case
// failed before its fix (a 101 left the client waiting for ever; `Transfer-Encoding: gzip` reached the
// client on a kept-alive connection with nothing to end its body).
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceChecker } from "../../conformance/run/open-checker.js";
import { type RunningProxy, startProxy } from "../../conformance/proxy/proxy.js";
import { rawStatus, sendRaw } from "../support/hostile.js";

let answer = "";
let received = "";
let upstream: Server;
let proxy: RunningProxy;
let port: number;

beforeAll(async () => {
  upstream = createServer((socket: Socket) => {
    socket.on("error", () => undefined);
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n\r\n") && answer) socket.write(answer);
    });
  });
  upstream.listen(0, "127.0.0.1");
  await once(upstream, "listening");
  const upstreamPort = (upstream.address() as { port: number }).port;
  proxy = await startProxy({
    upstream: new URL(`http://127.0.0.1:${upstreamPort}`),
    checker: { checkExchange: () => undefined } as unknown as ConformanceChecker,
    port: 0,
  });
  port = Number(new URL(proxy.url).port);
});

afterAll(async () => {
  await proxy.close();
  upstream.close();
});

/** The body of a raw answer, ended by its Content-Length (the only framing the proxy's own answers use). */
function framedBody(raw: string): string | undefined {
  const [head, body = ""] = raw.split(/\r\n\r\n(.*)/s);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head ?? "")?.[1];
  return length === undefined ? undefined : body.slice(0, Number(length));
}

const GET = "GET /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n\r\n";

describe("answers from the service that cannot be passed on become a framed 502", () => {
  it.each([
    [
      "a 101 to a request without Upgrade",
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n",
    ],
    ["a body coded gzip, read until close", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc"],
    ["gzip then chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"],
    ["chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"],
  ])("%s", async (_name, upstreamAnswer) => {
    answer = upstreamAnswer;
    received = "";
    // quietMs: the whole answer is there well within it; a client left waiting gets nothing at all.
    const got = await sendRaw(port, GET, 3_000, "127.0.0.1", 300);
    expect(rawStatus(got), JSON.stringify(got)).toBe(502);
    expect(JSON.parse(framedBody(got) ?? "null")).toMatchObject({ error_code: "PROXY_UPSTREAM" });
    expect(got).not.toMatch(/transfer-encoding/i);
  });

  it("passes a chunked answer on, framed by the proxy itself", async () => {
    answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    const got = await sendRaw(port, GET, 3_000, "127.0.0.1", 300);
    expect(rawStatus(got)).toBe(200);
    expect(got.match(/transfer-encoding/gi)).toHaveLength(1);
    expect(got).toMatch(/\r\n\r\n3\r\nabc\r\n0\r\n\r\n$/);
  });
});

describe("requests whose framing cannot be passed on are refused before the service sees them", () => {
  it.each([["gzip then chunked", "Transfer-Encoding: gzip, chunked\r\n"]])("%s", async (_name, header) => {
    answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    received = "";
    const got = await sendRaw(
      port,
      `POST /api/v4/pep_checks HTTP/1.1\r\nHost: x\r\n${header}\r\n3\r\nabc\r\n0\r\n\r\n`,
    );
    expect(rawStatus(got)).toBe(400);
    expect(JSON.parse(framedBody(got) ?? "null")).toMatchObject({ error_code: "PROXY_REQUEST" });
    expect(received).toBe("");
  });

  it("forwards a chunked request with framing of its own, and only one Transfer-Encoding", async () => {
    answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    received = "";
    const got = await sendRaw(
      port,
      "POST /api/v4/pep_checks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTE: trailers\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    );
    expect(rawStatus(got)).toBe(200);
    expect(received.match(/transfer-encoding/gi)).toHaveLength(1);
    expect(received).not.toMatch(/\r\nTE:/i);
    expect(received).toMatch(/\r\n\r\n3\r\nabc\r\n0\r\n\r\n$/);
  });
});
