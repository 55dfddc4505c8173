// Hostile clients against one running mock (issue 12, items 1, 2, 6 and 9): whatever a request
// holds, the process lives, another client is answered, Object.prototype is untouched, and the
// log names the route template and status, never a recorded segment or value.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import { startMock } from "../../mock/server.js";
import { createConformanceChecker } from "../../conformance/index.js";
import { jsonRequestExamples, loadOpenApi, operations } from "../support/contract.js";
import {
  assertPrototypesUntouched,
  CANARIES,
  containsCanary,
  HOSTILE_TARGETS,
  hostileHeaders,
  hostileJsonText,
  hostileJsonValue,
  hostileTarget,
  invalidUtf8Json,
  PROTOTYPE_KEYS,
  prototypeSnapshot,
  rawStatus,
  sendRaw,
} from "../support/hostile.js";
import { V2, V4 } from "../support/mock.js";

const doc = loadOpenApi();
const exampleOf = (operationId: string) =>
  jsonRequestExamples(doc, operations(doc).find((o) => o.op.operationId === operationId)?.op)?.[0];
const pepExample = exampleOf("createPepCheck");
const manualExample = exampleOf("createManualVerification");
let mock: RunningMock;
let port: number;
const log: string[] = [];
const snapshot = prototypeSnapshot();

beforeAll(async () => {
  mock = await startMock({ port: 0, log: (line) => log.push(line) });
  port = Number(new URL(mock.url).port);
});
afterAll(async () => {
  await mock?.close();
});

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${mock.url}${path}`, {
    method: "POST",
    headers: { ...V4, "content-type": "application/json", ...headers },
    // Bytes as a Blob: the DOM typings take no Uint8Array body.
    body: typeof body === "string" ? body : new Blob([new Uint8Array(body)]),
  });

/** The invariants after every hostile case: a valid request is still answered as before. */
async function assertStillServing(): Promise<void> {
  assertPrototypesUntouched(snapshot);
  const res = await post("/api/v4/pep_checks", JSON.stringify(pepExample));
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe("item 1: a request target no URL parser takes", () => {
  it.each(["//", "//%zz/api", "http://", "//a:99999/x", "*", "http://[::1/x"])(
    "%s is answered and the mock keeps serving",
    async (target) => {
      const answer = await sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect([400, 404]).toContain(rawStatus(answer));
      const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
      expect(body.error_code ?? body.error_type).toBeTypeOf("string");
      await assertStillServing();
    },
  );

  it("answers every known hostile target with a 4xx", async () => {
    for (const target of HOSTILE_TARGETS) {
      const status = rawStatus(await sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`));
      // A NUL in the line is refused by the parser itself, also with a 400.
      expect(status, target).toBeGreaterThanOrEqual(400);
      expect(status, target).toBeLessThan(500);
    }
    await assertStillServing();
  });
});

describe("item 2: a __proto__ member", () => {
  it("does not poison later requests", async () => {
    for (const body of ['{"__proto__":{"x":1}}', '{"metadata":{"__proto__":{"base":1}}}']) {
      const res = await post("/api/v4/pep_checks", body);
      expect(res.status).toBe(422);
      await res.arrayBuffer();
      await assertStillServing();
    }
  });

  it("is reported as a member in manual verification's validation_errors, nothing more", async () => {
    const res = await fetch(`${mock.url}/api/v2/manual_eidv`, {
      method: "POST",
      headers: { ...V2, "content-type": "application/json" },
      // The example with a `__proto__` member written literally at the top and inside `individual`.
      body: JSON.stringify(manualExample)
        .replace(/^\{/, '{"__proto__":{"base":["x"]},')
        .replace('"individual":{', '"individual":{"__proto__":{"x":1},'),
    });
    expect(res.status).toBe(422);
    const body = JSON.parse(await res.text());
    // ajv stops at the first unknown member of an object; whichever it reports is a plain member.
    const errors = body.validation_errors;
    expect(Object.getPrototypeOf(errors.individual)).toBe(Object.prototype);
    expect(Object.keys(errors.individual)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(errors.individual, "__proto__")?.value).toEqual([
      "is not a permitted member",
    ]);
    await assertStillServing();
  });
});

describe("prototype keys as query and header names on a good request", () => {
  it("are names like any other: the request is answered as without them", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 })), { maxLength: 4 }),
        async (pairs) => {
          const query = new URLSearchParams(pairs).toString();
          const headers = new Headers(V4);
          for (const [name, value] of pairs) headers.append(name, encodeURIComponent(value));
          const res = await fetch(`${mock.url}/api/v4/outsource_cases/1042?${query}`, { headers });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          assertPrototypesUntouched(snapshot);
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe("item 6: the log", () => {
  it("names the route template and status, never a recorded segment, query or header", async () => {
    const before = log.length;
    for (const canary of CANARIES) {
      const path = `/api/v4/outsource_cases/${encodeURIComponent(canary)}?q=${encodeURIComponent(canary)}`;
      await fetch(`${mock.url}${path}`, { headers: { ...V4, "x-note": canary } }).then((r) =>
        r.arrayBuffer(),
      );
      await fetch(`${mock.url}/nowhere/${encodeURIComponent(canary)}`).then((r) => r.arrayBuffer());
    }
    const lines = log.slice(before);
    expect(lines.length).toBeGreaterThanOrEqual(CANARIES.length * 2);
    expect(lines.filter(containsCanary)).toEqual([]);
    expect(lines).toContain("GET /api/v4/outsource_cases/{id} → 404");
  });
});

describe("item 9: bodies that are not what they claim", () => {
  it("refuses invalid UTF-8 inside a JSON body in the operation's shape", async () => {
    await fc.assert(
      fc.asyncProperty(invalidUtf8Json(), async (bytes) => {
        const res = await post("/api/v4/pep_checks", bytes);
        expect(res.status).toBe(422);
        expect(await res.json()).toEqual({
          error_code: "NOT_CREATED",
          message: "The request body is not valid UTF-8.",
        });
      }),
      { numRuns: 15 },
    );
    await assertStillServing();
  });

  it("does not take application/json-evil as JSON", async () => {
    const res = await post("/api/v4/pep_checks", JSON.stringify(pepExample), {
      "content-type": "application/json-evil",
    });
    expect(res.status).toBe(422);
    expect((await res.json()).message).toBe("Content-Type must be application/json.");
  });
});

describe("integer path segments", () => {
  const checker = createConformanceChecker();
  it.each([
    "1042",
    "9007199254740991",
    "1e3",
    "01",
    "0",
    "-1",
    "1.0",
    "9007199254740993",
    "999999999999999999999",
  ])("%s: the mock answers 200 exactly when the checker takes the request", async (id) => {
    const res = await fetch(`${mock.url}/api/v4/outsource_cases/${id}`, { headers: V4 });
    const body = Buffer.from(await res.arrayBuffer());
    const result = checker.checkExchange({
      index: 0,
      request: { method: "GET", path: `/api/v4/outsource_cases/${id}`, query: {}, headers: { ...V4 } },
      response: {
        status: res.status,
        headers: { "content-type": res.headers.get("content-type") ?? "" },
        body: { kind: "bytes", bytes: body },
      },
    });
    const requestRefused = result.violations.some((v) => v.in.startsWith("request."));
    expect(res.status).toBe(requestRefused ? 404 : 200);
    expect(result.violations.filter((v) => v.in.startsWith("response."))).toEqual([]);
  });
});

describe("hostile properties", () => {
  it("hostile request lines and headers over a raw socket", async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileTarget(),
        hostileHeaders(),
        fc.constantFrom("GET", "POST", "HEAD", "PATCH"),
        async (target, headers, method) => {
          const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`).join("");
          const answer = await sendRaw(port, `${method} ${target} HTTP/1.1\r\nHost: x\r\n${lines}\r\n`);
          expect(rawStatus(answer)).toBeDefined();
          expect(rawStatus(answer)).toBeLessThan(500);
          expect(containsCanary(answer)).toBe(false);
          assertPrototypesUntouched(snapshot);
        },
      ),
      { numRuns: 60 },
    );
    await assertStillServing();
    expect(log.filter(containsCanary)).toEqual([]);
  });

  it("hostile JSON bodies on every JSON operation", async () => {
    const targets = [
      "/api/v4/pep_checks",
      "/api/v2/manual_eidv",
      "/api/v4/outsource_cases",
      "/api/v2/send_text",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        fc.oneof(
          hostileJsonText(),
          hostileJsonValue().map((v) => JSON.stringify({ ...(pepExample as object), extra: v })),
        ),
        async (path, body) => {
          const res = await post(path, body, path.startsWith("/api/v2/") ? V2 : {});
          const text = await res.text();
          // The answer may name the sender's own members (validation_errors is keyed like the request); the log may not.
          expect(res.status, text.slice(0, 200)).toBeLessThan(500);
          assertPrototypesUntouched(snapshot);
        },
      ),
      { numRuns: 40 },
    );
    await assertStillServing();
    expect(log.filter(containsCanary)).toEqual([]);
  });
});
