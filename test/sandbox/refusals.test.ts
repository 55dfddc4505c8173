// The sandbox refuses a bad request body as the mock does, in the same words: one set of checks
// (mock/check-request.ts) serves both, so a client tested against either sees the same refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMock, type RunningMock } from "../../mock/server.js";
import { createClient } from "../../src/index.js";
import { type Json, loadOpenApi, operations } from "../support/contract.js";
import { CREDENTIALS, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let mock: RunningMock;
const doc = loadOpenApi();

beforeAll(async () => {
  sbx = await startTestSandbox();
  mock = await startMock({ port: 0 });
});
afterAll(async () => {
  await sbx.running.close();
  await mock.close();
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
