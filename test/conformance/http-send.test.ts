// The probe's and the receiver check's one request, against a peer writing raw bytes: a whole answer
// followed by stray bytes is that answer (Node's parser fails on the stray bytes before the answer's
// end is read), and a cut-short or missing answer is an outcome, never a throw.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeIdleSockets, send } from "../../conformance/probe/http-send.js";
import { rawPeer } from "../support/hostile.js";

let answer = "";
let peer: Awaited<ReturnType<typeof rawPeer>>;
let url: URL;

beforeAll(async () => {
  peer = await rawPeer(() => answer);
  url = new URL(`${peer.url}/x`);
});

afterAll(async () => {
  closeIdleSockets();
  await peer.close();
});

const LIMITS = { timeoutMs: 3_000, maxBodyBytes: 1024 };

describe("send", () => {
  it.each([
    ["a 304 with a body", "GET", "HTTP/1.1 304 Not Modified\r\nContent-Length: 2\r\n\r\nok", 304, ""],
    ["a 204 with a body", "GET", "HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\nok", 204, ""],
    [
      "more than Content-Length said",
      "GET",
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA",
      200,
      "ok",
    ],
    [
      "more than Content-Length said, closing",
      "GET",
      "HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokEXTRA",
      201,
      "ok",
    ],
    ["a body to HEAD", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, ""],
  ])("%s is the whole answer, without the stray bytes", async (_name, method, raw, status, body) => {
    answer = raw;
    const got = await send({ method, url, headers: [] }, LIMITS);
    expect(got).toMatchObject({ status, truncated: false });
    expect(got.failure).toBeUndefined();
    expect(got.body.toString("latin1")).toBe(body);
  });

  it("a body cut short of its Content-Length is the part that came, marked truncated", async () => {
    answer = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok";
    const got = await send({ method: "GET", url, headers: [] }, LIMITS);
    expect(got).toMatchObject({ status: 200, truncated: true });
  });

  it("no valid answer at all is a failure, not a status", async () => {
    answer = "HTTP/1.1 2x0 OK\r\n\r\n";
    const got = await send({ method: "GET", url, headers: [] }, LIMITS);
    expect(got).toMatchObject({ status: 0, failure: "closed" });
  });
});
