// Under createSafeServer no request ends the process: throws, rejections, bad targets and bad
// HTTP are answered in the caller's shape, and another client is answered afterwards.
import { once } from "node:events";
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSafeServer, HttpError, listen, type Listening, readBody } from "../../src/server/index.js";
import { HOSTILE_TARGETS, rawStatus, sendRaw } from "../support/hostile.js";

let server: Listening;
/** The length of /big's answer: more than a socket takes at once, so it is still being written. */
const BIG = 4_000_000;
const failures: string[] = [];

beforeAll(async () => {
  const safe = createSafeServer(
    async (req, res, target) => {
      if (target.pathname === "/throw") throw new Error("CANARY-SECRET-123 in a message");
      if (target.pathname === "/reject") return Promise.reject(new TypeError("x"));
      if (target.pathname === "/teapot") throw new HttpError(418, "No coffee.", { "x-why": "tea" });
      if (target.pathname === "/slow") {
        await new Promise((resolve) => setTimeout(resolve, 50));
        res.end("late");
        return;
      }
      if (target.pathname === "/big") {
        res.end("y".repeat(BIG));
        return;
      }
      if (target.pathname === "/body") {
        const read = await readBody(req, 8);
        res.end(read.ok ? `got ${read.bytes.length}` : `too large ${read.size}`);
        return;
      }
      if (target.pathname === "/half") {
        res.writeHead(200, { "content-length": "100" });
        res.write("partial");
        throw new Error("after headers");
      }
      res.end(`path ${target.pathname}`);
    },
    {
      errorBody: (status, message, pathname) => ({
        error_code: `E${status}`,
        message,
        where: pathname ?? null,
      }),
      onError: (kind) => failures.push(kind),
    },
  );
  server = await listen(safe, 0);
});
afterAll(() => server?.close());

const get = async (path: string, init?: RequestInit) => {
  const res = await fetch(`${server.url}${path}`, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
};

describe("createSafeServer", () => {
  it("answers a throw or a rejection with 500 in the caller's shape and logs only the kind", async () => {
    const thrown = await get("/throw");
    expect(thrown.status).toBe(500);
    expect(JSON.parse(thrown.text)).toEqual({
      error_code: "E500",
      message: "The server failed to answer this request.",
      where: "/throw",
    });
    expect((await get("/reject")).status).toBe(500);
    expect(failures).toEqual(["Error", "TypeError"]);
  });

  it("answers an HttpError with its status, message and headers", async () => {
    const teapot = await get("/teapot");
    expect(teapot.status).toBe(418);
    expect(teapot.headers.get("x-why")).toBe("tea");
    expect(JSON.parse(teapot.text).message).toBe("No coffee.");
  });

  it("ends the connection of an answer that had begun", async () => {
    await expect(get("/half")).rejects.toThrow();
    expect((await get("/ok")).text).toBe("path /ok");
  });

  it("counts a body in bytes and drains one past the limit", async () => {
    expect((await get("/body", { method: "POST", body: "ééé" })).text).toBe("got 6");
    expect((await get("/body", { method: "POST", body: "ééééé" })).text).toBe("too large 10");
  });

  it("answers every hostile request target and stays up", async () => {
    for (const target of HOSTILE_TARGETS) {
      const answer = await sendRaw(server.port, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const status = rawStatus(answer);
      expect(status, target).toBeDefined();
      expect([200, 400]).toContain(status);
      expect((await get("/ok")).status).toBe(200);
    }
  });

  it("answers a client that half-closes after its request, even when the answer takes a while", async () => {
    const answer = await sendRaw(server.port, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(rawStatus(answer)).toBe(200);
    expect(answer.endsWith("late")).toBe(true);
  });

  it("answers a request line that is not HTTP with 400 in the caller's shape", async () => {
    const answer = await sendRaw(server.port, "GARBAGE\r\n\r\n");
    expect(rawStatus(answer)).toBe(400);
    expect(answer).toContain('"error_code":"E400"');
    const big = await sendRaw(server.port, `GET / HTTP/1.1\r\nx: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(rawStatus(big)).toBe(431);
    expect((await get("/ok")).status).toBe(200);
  });
});

describe("bytes the parser refuses after a whole request", () => {
  const slow = "GET /slow HTTP/1.1\r\nHost: x\r\n";
  it("come second: the request's own answer first, then the refusal, then the connection closes", async () => {
    const answer = await sendRaw(server.port, `${slow}\r\nGARBAGE\r\n\r\n`);
    expect(rawStatus(answer)).toBe(200);
    const late = answer.indexOf("late");
    expect(late).toBeGreaterThan(0);
    expect(answer.indexOf("HTTP/1.1 400")).toBeGreaterThan(late);
  });

  it("after `Connection: close`, are not answered at all", async () => {
    const answer = await sendRaw(server.port, `${slow}Connection: close\r\n\r\nGARBAGE\r\n\r\n`);
    expect(rawStatus(answer)).toBe(200);
    expect(answer).toContain("late");
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it("wait for every whole request's answer, however long, before the refusal", async () => {
    const answer = await sendRaw(
      server.port,
      `${slow}\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\nBAD\x01 LINE\r\n\r\n`,
      10_000,
      "127.0.0.1",
      1_000,
    );
    const big = answer.indexOf("y".repeat(BIG));
    expect(big).toBeGreaterThan(answer.indexOf("late"));
    expect(answer.indexOf("HTTP/1.1 400")).toBe(big + BIG);
    const alone = await sendRaw(
      server.port,
      "GET /big HTTP/1.1\r\nHost: x\r\n\r\nBAD\x01\r\n\r\n",
      10_000,
      "127.0.0.1",
      1_000,
    );
    expect(alone.indexOf("HTTP/1.1 400")).toBe(alone.indexOf("y".repeat(BIG)) + BIG);
  }, 30_000);

  it("refused again with every chunk that follows, wait once: one refusal, no listener piling up", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const socket = connect(server.port, "127.0.0.1");
      // Listened for before the writes: on a busy machine the connection can close while they go on.
      const closed = once(socket, "close");
      let answer = "";
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
      socket.on("error", () => undefined);
      socket.write(`${slow}\r\nBAD\x01 LINE\r\n`);
      for (let i = 0; i < 30; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (!socket.destroyed) socket.write("more garbage\r\n");
      }
      await closed;
      expect(answer.match(/HTTP\/1\.1 400/g)).toHaveLength(1);
      expect(answer.indexOf("late")).toBeLessThan(answer.indexOf("HTTP/1.1 400"));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("whatever they are, never take the place of the answer to the request before them", async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.uint8Array({ minLength: 1, maxLength: 64 }), async (close, tail) => {
        const head = Buffer.from(`${slow}${close ? "Connection: close\r\n" : ""}\r\n`, "latin1");
        const answer = await sendRaw(server.port, Buffer.concat([head, tail]), 2_000, "127.0.0.1", 120);
        expect(rawStatus(answer)).toBe(200);
        expect(answer.slice(0, answer.indexOf("late") + 4)).not.toMatch(/HTTP\/1\.1 (?!200)/);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});

describe("a request that trickles", () => {
  it("is cut off with a 408 in the caller's shape once its time is up, and the server still answers", async () => {
    const slow = await listen(
      createSafeServer(
        async (req, res) => {
          const read = await readBody(req, 1_000);
          res.end(read.ok ? "whole" : "too large");
        },
        {
          errorBody: (status, message, pathname) => ({ error_code: `E${status}`, message, where: pathname }),
          requestTimeoutMs: 400,
        },
      ),
      0,
    );
    try {
      // Headers announce 100 bytes; 3 arrive, then nothing: without a deadline the socket stays open for minutes.
      const socket = connect(slow.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
      socket.on("error", () => undefined);
      socket.write("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
      await once(socket, "close");
      expect(rawStatus(answer)).toBe(408);
      expect(answer).toContain('"error_code":"E408"');
      // Its headers arrived, so its path is known and its shape is the path's.
      expect(answer).toContain('"where":"/x"');
      expect((await fetch(slow.url, { method: "POST", body: "ok" })).status).toBe(200);
    } finally {
      await slow.close();
    }
  }, 15_000);
});

describe("listen", () => {
  it("closes a server with a kept-alive connection promptly", async () => {
    const other = await listen(
      createSafeServer((_req, res) => res.end("x"), { errorBody: () => ({}) }),
      0,
    );
    await fetch(other.url, { keepalive: true }).then((r) => r.text());
    const started = Date.now();
    await other.close();
    expect(other.server.listening).toBe(false);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("rejects with EADDRINUSE when the port is taken", async () => {
    const taken = createSafeServer((_req, res) => res.end(), { errorBody: () => ({}) });
    await expect(listen(taken, server.port)).rejects.toMatchObject({ code: "EADDRINUSE" });
  });
});
