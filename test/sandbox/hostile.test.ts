// The sandbox passes the hostile-input properties the mock passes (issue 12): whatever a request holds
// (target, headers, JSON, bytes), on the service's paths and the control API, the process lives,
// another client is answered, Object.prototype is untouched, every refusal is a 4xx in the right
// shape, and the log names route templates and statuses only, never a value.
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertPrototypesUntouched,
  CANARIES,
  containsCanary,
  deeplyNested,
  HOSTILE_TARGETS,
  hostileHeaders,
  hostileJsonText,
  hostileJsonValue,
  hostileTarget,
  invalidUtf8Json,
  prototypeSnapshot,
  rawStatus,
  sendRaw,
} from "../support/hostile.js";
import { CREDENTIALS, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let port: number;
const snapshot = prototypeSnapshot();

beforeAll(async () => {
  sbx = await startTestSandbox();
  port = sbx.running.server.port;
});
afterAll(() => sbx.running.close());

const v2 = { "svc-api-key": CREDENTIALS.apiKey, "svc-secret": CREDENTIALS.secret };
const v4 = (body: string | Uint8Array) => {
  const date = new Date().toISOString();
  const signature = createHmac("sha256", CREDENTIALS.secret).update(date).update(body).digest("hex");
  return { "svc-api-key": CREDENTIALS.apiKey, "svc-date": date, "svc-signature": signature };
};

/** POST raw bytes to a path with the right credentials for it. */
function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const auth = path.startsWith("/api/v2/") ? v2 : path.startsWith("/api/v4/") ? v4(body) : {};
  return fetch(`${sbx.running.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth, ...headers },
    // Node's fetch sends bytes as they are; the DOM typing wants an ArrayBuffer-backed view.
    body: body as BodyInit,
  });
}

/** The invariants after every hostile case: nothing poisoned, other clients still answered, the log clean. */
async function assertStillServing(): Promise<void> {
  assertPrototypesUntouched(snapshot);
  const res = await post("/api/v2/send_text", JSON.stringify({ reference: "still-here" }));
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  // Every body read to its end: one left unread holds its connection until the Response is collected.
  const clock = await fetch(`${sbx.running.url}/_sandbox/clock`);
  await clock.arrayBuffer();
  expect(clock.status).toBe(200);
  expect(sbx.lines.filter(containsCanary)).toEqual([]);
}

const PATHS = [
  "/api/v2/send_text",
  "/api/v2/manual_eidv",
  "/api/v4/pep_checks",
  "/api/v4/outsource_cases",
  "/api/v4/properties",
  "/_sandbox/receivers",
  "/_sandbox/clock/advance",
  "/_sandbox/workflow_cases",
];

describe("request targets", () => {
  it("answers every known hostile target with a 4xx and keeps serving", async () => {
    for (const target of [...HOSTILE_TARGETS, "/_sandbox/%zz", "/_sandbox/workflow_cases/1e3"]) {
      const status = rawStatus(await sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`));
      expect(status, target).toBeGreaterThanOrEqual(400);
      expect(status, target).toBeLessThan(500);
    }
    await assertStillServing();
  });

  it("any target and headers: a 4xx or a 2xx, never a 5xx or a dead process", async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileTarget(),
        hostileHeaders(),
        fc.constantFrom("GET", "POST", "DELETE"),
        async (target, headers, method) => {
          const lines = headers.map(([k, v]) => `${k}: ${v}\r\n`).join("");
          const prefix = method === "GET" ? "" : "/_sandbox";
          const answer = await sendRaw(
            port,
            `${method} ${prefix}${target} HTTP/1.1\r\nHost: x\r\n${lines}\r\n`,
          );
          const status = rawStatus(answer);
          expect(status, target).toBeDefined();
          expect(status, target).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
    await assertStillServing();
  });
});

describe("JSON bodies", () => {
  it("hostile JSON to every kind of path is refused or accepted, never a 5xx, nothing poisoned", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), hostileJsonText(), async (path, text) => {
        const res = await post(path, text);
        await res.arrayBuffer();
        expect(res.status, path).toBeLessThan(500);
        assertPrototypesUntouched(snapshot);
      }),
      { numRuns: 60 },
    );
    await assertStillServing();
  });

  it("prototype keys inside otherwise valid bodies poison nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), hostileJsonValue(3), async (path, value) => {
        const body = `{"__proto__":${JSON.stringify(value) ?? "null"},"reference":"r","url":"http://127.0.0.1:9/x","duration":"PT1S"}`;
        const res = await post(path, body);
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 30 },
    );
    await assertStillServing();
  });

  it("invalid UTF-8, a JSON look-alike media type and deep nesting are refused with a 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), invalidUtf8Json(), async (path, bytes) => {
        const res = await post(path, bytes);
        await res.arrayBuffer();
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 20 },
    );
    for (const path of PATHS) {
      const evil = await post(path, JSON.stringify({ reference: "r", url: "http://x/", duration: "PT1S" }), {
        "content-type": "application/json-evil",
      });
      await evil.arrayBuffer();
      expect(evil.status, path).toBeGreaterThanOrEqual(400);
      expect(evil.status, path).toBeLessThan(500);
      const deep = await post(path, deeplyNested(100_000, "object"));
      await deep.arrayBuffer();
      expect(deep.status, path).toBeGreaterThanOrEqual(400);
      expect(deep.status, path).toBeLessThan(500);
    }
    await assertStillServing();
  });

  it("control refusals say where and what, never the value sent", async () => {
    for (const [path, body] of [
      ["/_sandbox/clock/advance", { duration: CANARIES[0] }],
      ["/_sandbox/receivers", { url: CANARIES[1] }],
      ["/_sandbox/receivers", { url: "http://x/", [CANARIES[0]]: 1 }],
      ["/_sandbox/workflow_cases", { guided_flow_id: CANARIES[2] }],
    ] as const) {
      const res = await post(path, JSON.stringify(body));
      expect(res.status, path).toBe(400);
      const text = await res.text();
      expect(containsCanary(text), text).toBe(false);
      expect(JSON.parse(text).message).toMatch(/^Invalid request body: \//);
    }
  });
});

describe("control API misuse", () => {
  it("answers malformed control requests with clear 4xx errors", async () => {
    const cases: [string, RequestInit, number, RegExp][] = [
      [
        "/_sandbox/clock/advance",
        { method: "POST", body: "{", headers: { "content-type": "application/json" } },
        400,
        /not valid JSON/,
      ],
      ["/_sandbox/clock/advance", { method: "POST", body: "{}" }, 400, /Content-Type/],
      [
        "/_sandbox/clock/advance",
        { method: "POST", body: '{"duration":"P1M"}', headers: { "content-type": "application/json" } },
        400,
        /ISO-8601/,
      ],
      [
        "/_sandbox/clock/advance",
        {
          method: "POST",
          body: '{"duration":"PT1H","x":1}',
          headers: { "content-type": "application/json" },
        },
        400,
        /does not take/,
      ],
      [
        "/_sandbox/receivers",
        { method: "POST", body: '{"url":"ftp://x/"}', headers: { "content-type": "application/json" } },
        400,
        /http or https/,
      ],
      [
        "/_sandbox/receivers",
        { method: "POST", body: '{"url":"http://u:p@x/"}', headers: { "content-type": "application/json" } },
        400,
        /credentials/,
      ],
      [
        "/_sandbox/receivers",
        {
          method: "POST",
          body: JSON.stringify({ url: "http://x/", auth: { scheme: "bearer", token: "a\r\nX-Injected: 1" } }),
          headers: { "content-type": "application/json" },
        },
        400,
        /\/auth\/token: .*token68/,
      ],
      ["/_sandbox/clock", { method: "PUT" }, 405, /use GET/],
      ["/_sandbox/nothing", { method: "GET" }, 404, /No operation/],
      ["/_sandbox/deliveries?status=lost", { method: "GET" }, 400, /status/],
      [
        "/_sandbox/clock/advance",
        { method: "POST", body: "x".repeat(70_000), headers: { "content-type": "application/json" } },
        413,
        /64 KiB/,
      ],
    ];
    for (const [path, init, status, message] of cases) {
      const res = await fetch(`${sbx.running.url}${path}`, init);
      expect(res.status, path).toBe(status);
      const body = await res.json();
      expect(body.message, path).toMatch(message);
      expect(body.error_code).toBeTypeOf("string");
    }
  });
});
