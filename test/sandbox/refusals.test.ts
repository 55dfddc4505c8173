// The sandbox refuses a bad request body as the mock does, in the same words: one set of checks
// (src/server/check-request.ts) serves both, so a client tested against either sees the same refusals.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../mock/server.js";
import { createClient } from "../../src/index.js";
import { deref, type Json, loadOpenApi, operations } from "../support/contract.js";
import { concretePath } from "../support/mock.js";
import { CREDENTIALS, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let mock: RunningMock;
/** The mock given the sandbox's credentials: it refuses wrong ones as the sandbox does. */
let keyedMock: RunningMock;
const doc = loadOpenApi();

beforeAll(async () => {
  sbx = await startTestSandbox();
  mock = await startMock({ port: 0 });
  keyedMock = await startMock({ port: 0, credentials: CREDENTIALS });
});
afterAll(async () => {
  await sbx.running.close();
  await mock.close();
  await keyedMock.close();
});

/** An answer without what differs by design between two answers: ids and times. */
function comparable(status: number, body: Json): Json {
  const copy = structuredClone(body);
  if (copy?.metadata) {
    delete copy.metadata.request_id;
    delete copy.metadata.timestamp;
  }
  return { status, body: copy };
}

const BAD_BODIES: [string, string][] = [
  ["an array", "[]"],
  ["a member the schema does not take, with a reference", '{"metadata":{"reference":"R-1"},"zzz":1}'],
  ["text that is not JSON", "{"],
  ["nesting past the limit", `${"[".repeat(300)}${"]".repeat(300)}`],
];

describe("the sandbox and the mock refuse bad bodies alike", () => {
  it("for every JSON operation without path parameters", async () => {
    const clients = [sbx.running.url, mock.url].map(
      (baseUrl) =>
        createClient({ baseUrl, ...CREDENTIALS, runtime: "server", retry: false }) as unknown as Record<
          string,
          (path: string, init: Json) => Promise<{ data?: Json; error?: Json; response: Response }>
        >,
    );
    let compared = 0;
    for (const { method, path, op } of operations(doc)) {
      if (path.includes("{") || !op.requestBody?.content?.["application/json"]) continue;
      for (const [what, text] of BAD_BODIES) {
        const [fromSandbox, fromMock] = await Promise.all(
          clients.map((c) =>
            c[method.toUpperCase()]!(path, {
              body: text,
              bodySerializer: (b: string) => b,
              headers: { "content-type": "application/json" },
            }),
          ),
        );
        const answers = [fromSandbox!, fromMock!].map((r) => comparable(r.response.status, r.error));
        expect(answers[0], `${method.toUpperCase()} ${path}: ${what}`).toEqual(answers[1]);
        expect(answers[0].status).toBeGreaterThanOrEqual(400);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });
});

/** The credential headers an operation's path takes, right for the sandbox (v4: a valid signature). */
function credentials(path: string, body: string): Record<string, string> {
  if (path.startsWith("/api/v2/"))
    return { "svc-api-key": CREDENTIALS.apiKey, "svc-secret": CREDENTIALS.secret };
  const date = new Date().toISOString();
  const signature = createHmac("sha256", CREDENTIALS.secret)
    .update(date + body)
    .digest("hex");
  return { "svc-api-key": CREDENTIALS.apiKey, "svc-date": date, "svc-signature": signature };
}

const BROWSER_HEADERS: Record<string, string>[] = [
  {},
  { origin: "https://shop.example" },
  { "x-requested-with": "XMLHttpRequest" },
  { origin: "null", "x-requested-with": "XMLHttpRequest" },
];

describe("the sandbox and the mock apply one browser-script rule (CRED_AT_RISK)", () => {
  it("answer the same requests with the same status and code wherever either refuses them", async () => {
    let atRisk = 0;
    for (const { method, path, op } of operations(doc)) {
      // Where the contract lists CRED_AT_RISK among the operation's 400 codes.
      const documented = JSON.stringify(deref(doc, op.responses?.["400"]) ?? null).includes("CRED_AT_RISK");
      for (const browser of BROWSER_HEADERS) {
        const body = method === "get" ? "" : "{}";
        const answers = await Promise.all(
          [sbx.running.url, mock.url].map(async (base) => {
            const response = await fetch(base + concretePath(path), {
              method: method.toUpperCase(),
              headers: {
                ...credentials(path, body),
                ...browser,
                ...(body ? { "content-type": "application/json" } : {}),
              },
              ...(body ? { body } : {}),
            });
            const text = await response.text();
            let code: unknown;
            try {
              const json = JSON.parse(text);
              code = json.error_code ?? json.error_type;
            } catch {
              code = undefined;
            }
            return { status: response.status, code };
          }),
        );
        const [fromSandbox, fromMock] = answers as [
          { status: number; code: unknown },
          { status: number; code: unknown },
        ];
        const where = `${method.toUpperCase()} ${path} ${JSON.stringify(browser)}`;
        const refused = [fromSandbox, fromMock].filter((a) => a.code === "CRED_AT_RISK").length;
        if (refused > 0) expect(fromSandbox, where).toEqual(fromMock);
        const fromScript = Object.keys(browser).length > 0;
        expect(fromSandbox.code === "CRED_AT_RISK", where).toBe(fromScript && documented);
        if (fromScript && documented) atRisk++;
      }
    }
    // v2 and v4 operations both list it: both kinds of credentials were refused.
    expect(atRisk).toBeGreaterThan(20);
  });
});

/** Credentials of the right kind for the path, each wrong in one way. */
function wrongCredentials(path: string, body: string): [string, Record<string, string>][] {
  const right = credentials(path, body);
  if (path.startsWith("/api/v2/"))
    return [
      ["wrong key", { ...right, "svc-api-key": "not-the-key" }],
      ["wrong secret", { ...right, "svc-secret": "not-the-secret" }],
    ];
  return [
    ["wrong key", { ...right, "svc-api-key": "not-the-key" }],
    [
      "signature by another secret",
      {
        ...right,
        "svc-signature": createHmac("sha256", "not-the-secret")
          .update((right["svc-date"] ?? "") + body)
          .digest("hex"),
      },
    ],
    ["signature over other bytes", credentials(path, `${body} `)],
  ];
}

describe("the sandbox and a mock given the same credentials refuse wrong ones alike", () => {
  it("answer every operation's wrong key, secret or signature with the same status and code", async () => {
    let refused = 0;
    for (const { method, path } of operations(doc)) {
      const body = method === "get" ? "" : "{}";
      for (const [what, headers] of wrongCredentials(path, body)) {
        const answers = await Promise.all(
          [sbx.running.url, keyedMock.url, mock.url].map(async (base) => {
            const response = await fetch(base + concretePath(path), {
              method: method.toUpperCase(),
              headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
              ...(body ? { body } : {}),
            });
            const json = await response.json().catch(() => ({}));
            return { status: response.status, code: json.error_code ?? json.error_type };
          }),
        );
        const [fromSandbox, fromKeyedMock, fromMock] = answers;
        const where = `${method.toUpperCase()} ${path} ${what}`;
        expect(fromSandbox?.status, where).toBe(401);
        expect(fromKeyedMock, where).toEqual(fromSandbox);
        // Without credentials of its own the mock cannot know these are wrong.
        expect(fromMock?.status, where).not.toBe(401);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(30);
  });
});

describe("the sandbox and the mock route alike (one unrouted answer)", () => {
  it("answer an unknown path 404 and a known path's other method 405 with Allow, in the same words", async () => {
    const requests: [string, string][] = [
      ["GET", "/api/v4/no_such_thing"],
      ["GET", "/api/v2/manual_eidv/x/y/z"],
      ["DELETE", "/api/v4/pep_checks"],
      ["GET", "/api/v2/manual_eidv"],
      ["PATCH", "/api/v2/send_text"],
    ];
    for (const [method, path] of requests) {
      const [fromSandbox, fromMock] = await Promise.all(
        [sbx.running.url, mock.url].map(async (base) => {
          const response = await fetch(base + path, { method });
          return {
            ...comparable(response.status, await response.json()),
            allow: response.headers.get("allow"),
          };
        }),
      );
      expect(fromSandbox, `${method} ${path}`).toEqual(fromMock);
      expect([404, 405]).toContain(fromSandbox?.status);
    }
  });
});
