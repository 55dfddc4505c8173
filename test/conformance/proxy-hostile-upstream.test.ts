// A service whose answers Node will not pass on: a reason phrase with a control character, status
// codes out of range, header names and values of any byte. The proxy answers each (as sent, or 502 in
// the service's shape), never ends, keeps its recording valid, and serves the next request. A
// `200 O\x01K` ended the proxy before: writeHead threw, and the 502 that followed reused the phrase.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceChecker } from "../../conformance/run/open-checker.js";
import { type RunningProxy, startProxy } from "../../conformance/proxy/proxy.js";
import { runProxy } from "../../conformance/proxy/proxy-cli.js";
import { rawPeer, rawStatus, sendRaw } from "../support/hostile.js";
import { Capture } from "./support/in-process.js";

const GOOD = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok";
let answer = GOOD;
let upstream: Awaited<ReturnType<typeof rawPeer>>;

// Each answer is the connection's last: a hostile one must not leave bytes for the next request.
beforeAll(async () => {
  upstream = await rawPeer(() => answer);
});

afterAll(() => upstream.close());

const GET = (path = "/api/v4/outsource_cases/1") => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

describe("an upstream's answer the proxy cannot send on", () => {
  let proxy: RunningProxy;
  let port: number;
  beforeAll(async () => {
    proxy = await startProxy({
      upstream: new URL(upstream.url),
      checker: { checkExchange: () => undefined } as unknown as ConformanceChecker,
      port: 0,
    });
    port = Number(new URL(proxy.url).port);
  });
  afterAll(() => proxy.close());

  it.each([
    [
      "a control character in the reason phrase",
      "HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nok",
      "/api/v4/outsource_cases/1",
    ],
    [
      "a DEL in the reason phrase, on manual verification",
      "HTTP/1.1 201 A\x7fB\r\nContent-Length: 2\r\n\r\nok",
      "/api/v2/manual_eidv/x",
    ],
    [
      "a NUL in the reason phrase",
      "HTTP/1.1 404 \x00\r\nContent-Length: 0\r\n\r\n",
      "/api/v4/outsource_cases/1",
    ],
  ])("%s gets 502 in the service's shape, then the next request is served", async (_name, hostile, path) => {
    answer = hostile;
    const got = await sendRaw(port, GET(path), 3_000, "127.0.0.1", 300);
    expect(rawStatus(got), JSON.stringify(got)).toBe(502);
    expect(got).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    const body = JSON.parse(got.slice(got.indexOf("\r\n\r\n") + 4));
    if (path.startsWith("/api/v2/manual_eidv")) expect(body).toMatchObject({ error_type: "SYSTEM" });
    else
      expect(body).toEqual({
        error_code: "PROXY_UPSTREAM",
        message: "The service's answer is not valid HTTP.",
      });
    answer = GOOD;
    expect(rawStatus(await sendRaw(port, GET(), 3_000, "127.0.0.1", 300))).toBe(200);
  });

  it.each([
    [
      "a 304 with a body",
      "GET",
      "HTTP/1.1 304 Not Modified\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
      304,
    ],
    [
      "a 204 with a body, on a kept connection",
      "GET",
      "HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\nok",
      204,
    ],
    [
      "more than Content-Length said",
      "GET",
      "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokEXTRA",
      200,
    ],
    ["a body to HEAD", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 200],
    [
      "a refused phrase, then stray bytes",
      "GET",
      "HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nokEXTRA",
      502,
    ],
  ])("%s: the whole answer goes on, the stray bytes do not", async (_name, method, hostile, status) => {
    answer = hostile;
    const got = await sendRaw(
      port,
      `${method} /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n\r\n`,
      3_000,
      "127.0.0.1",
      300,
    );
    expect(rawStatus(got), JSON.stringify(got)).toBe(status);
    expect(got).not.toContain("EXTRA");
    if (status !== 502) expect(got.endsWith("\r\n\r\n") || got.endsWith("\r\n\r\nok")).toBe(true);
    answer = GOOD;
    expect(rawStatus(await sendRaw(port, GET(), 3_000, "127.0.0.1", 300))).toBe(200);
  });

  /** A byte string of latin1 characters, CR and LF left out (they would end the line). */
  const line = (maxLength: number) =>
    fc
      .array(fc.integer({ min: 0, max: 255 }), { maxLength })
      .map((codes) => String.fromCharCode(...codes.filter((c) => c !== 0x0d && c !== 0x0a)));

  it("answers every hostile status line and header, and serves the next request", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 0, max: 999 }).map((n) => String(n).padStart(3, "0")),
          // Codes whose answers have no body, so the two bytes after the head are stray.
          fc.constantFrom("100", "101", "204", "304"),
          line(4),
        ),
        line(12),
        fc.oneof(line(10), fc.constantFrom("X-Ok", "Content-Type", "Set-Cookie")),
        line(20),
        fc.constantFrom("GET", "HEAD"),
        fc.constantFrom("", "EXTRA"),
        async (code, phrase, name, value, method, stray) => {
          answer = `HTTP/1.1 ${code} ${phrase}\r\n${name}: ${value}\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok${stray}`;
          const request = `${method} /api/v4/outsource_cases/1 HTTP/1.1\r\nHost: x\r\n\r\n`;
          const got = await sendRaw(port, request, 3_000, "127.0.0.1", 200);
          const status = rawStatus(got);
          // Passed on as sent, or a 502: never no answer at all.
          expect(status === 502 || status === Number(code), JSON.stringify(got)).toBe(true);
          if (status !== 502) {
            expect(got.startsWith(`HTTP/1.1 ${code} ${phrase}\r\n`)).toBe(true);
            expect(phrase).toMatch(/^[\t\x20-\x7e\x80-\xff]*$/);
          }
          answer = GOOD;
          expect(rawStatus(await sendRaw(port, GET(), 3_000, "127.0.0.1", 200))).toBe(200);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("through the CLI, with a recording", () => {
  it("answers 502 to the hostile phrase, keeps running, and closes a valid HAR", async () => {
    const dir = mkdtempSync(join(tmpdir(), "idv-proxy-hostile-"));
    try {
      const har = join(dir, "traffic.har");
      const stdout = new Capture();
      const stderr = new Capture();
      let stop = (): void => undefined;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      let listened = (_url: string): void => undefined;
      const listening = new Promise<string>((resolve) => (listened = resolve));
      const finished = runProxy(["proxy", "--upstream", upstream.url, "--port", "0", "--record", har], {
        stdout,
        stderr,
        stopped,
        onListening: (url) => listened(url),
      });
      const port = Number(new URL(await listening).port);
      answer = "HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nok";
      expect(rawStatus(await sendRaw(port, GET(), 3_000, "127.0.0.1", 300))).toBe(502);
      answer = GOOD;
      expect(rawStatus(await sendRaw(port, GET(), 3_000, "127.0.0.1", 300))).toBe(200);
      stop();
      await finished;
      const log = JSON.parse(readFileSync(har, "utf8")).log;
      expect(log.entries.map((e: { response: { status: number } }) => e.response.status)).toEqual([200]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
