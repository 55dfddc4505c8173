// Heads Node would answer bare (issue: no Host, a Host after 1,000 headers, `Expect: 200-ok`, which
// also kept the connection open) are refused by the mock and the sandbox in the path's error shape,
// and the connection is closed: a request pipelined behind the refused one is never answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import { startTestMock } from "../support/mock.js";
import { sendRaw } from "../support/hostile.js";
import { startTestSandbox } from "../support/sandbox.js";

let mock: RunningMock;
let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  mock = await startTestMock();
  sbx = await startTestSandbox();
});
afterAll(async () => {
  await mock?.close();
  await sbx?.running.close();
});

const many = (n: number) => Array.from({ length: n }, (_, i) => `X-H${i}: v\r\n`).join("");
const NEXT = "GET /api/v4/outsource_cases/2 HTTP/1.1\r\nHost: x\r\n\r\n";
const port = (url: string) => Number(new URL(url).port);

/** Every status line of a raw answer stream. */
const statuses = (raw: string) => [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));

describe.each([
  ["the mock", () => port(mock.url)],
  ["the sandbox", () => port(sbx.running.url)],
])("%s", (_server, portOf) => {
  describe.each([
    ["/api/v4/outsource_cases/1", "B"],
    ["/api/v2/manual_eidv", "A"],
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
    ])("%s: refused in the path's shape, the connection closed", async (_name, head, status) => {
      const raw = await sendRaw(portOf(), head + NEXT, 3_000, "127.0.0.1", 300);
      expect(statuses(raw), raw.slice(0, 200)).toEqual([status]);
      expect(raw).toMatch(/\r\nconnection: close\r\n/i);
      const error = bodyOf(raw);
      if (shape === "A") expect(error).toMatchObject({ error_type: expect.any(String), metadata: {} });
      else expect(Object.keys(error).sort()).toEqual(["error_code", "message"]);
      expect(error.message).toEqual(expect.any(String));
    });
  });

  it("answers 1,000 headers, Expect: 100-continue and an HTTP/1.0 request without Host as usual", async () => {
    const ok = "GET /api/v4/outsource_cases/1 HTTP/1.1\r\n";
    for (const head of [
      `${ok}Host: x\r\n${many(999)}\r\n`,
      `${ok}Host: x\r\nExpect: 100-continue\r\n\r\n`,
      "GET /api/v4/outsource_cases/1 HTTP/1.0\r\n\r\n",
    ]) {
      const raw = await sendRaw(portOf(), head, 3_000, "127.0.0.1", 300);
      // Past the head checks: the credentials are what is missing now (401), never a 400/417/431.
      expect(
        statuses(raw).filter((s) => s !== 100),
        head.slice(0, 60),
      ).toEqual([401]);
    }
  });
});
