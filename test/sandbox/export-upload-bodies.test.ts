// The bodies the contract, the mock and the sandbox must agree on: an export whose body is not the
// empty JSON object it takes (422, listed by the contract), and an upload whose `file` part has no
// file name (accepted when its type states the format, else refused saying so).
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMock, startMock } from "../../mock/server.js";
import { createClient } from "../../src/index.js";
import { type Json, loadOpenApi } from "../support/contract.js";
import { CREDENTIALS, startTestSandbox, trafficViolations } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let mock: RunningMock;
const doc = loadOpenApi();

beforeAll(async () => {
  sbx = await startTestSandbox();
  mock = await startMock({ port: 0, credentials: CREDENTIALS });
});
afterAll(async () => {
  await sbx.running.close();
  await mock.close();
});

type Loose = Record<string, (path: string, init: Json) => Promise<{ error?: Json; response: Response }>>;
const EXPORT = "/api/v2/manual_eidv/{transaction_id}/export_and_archive";

/** A manual verification made on the sandbox: the export of an unknown one is a 404 before its body is read. */
async function manualVerification(): Promise<string> {
  const example = doc.paths["/api/v2/manual_eidv"].post.requestBody.content["application/json"].examples;
  const { $ref } = Object.values<Json>(example)[0];
  const name = String($ref).split("/").pop() as string;
  const { data } = await sbx.client.POST("/api/v2/manual_eidv", {
    body: doc.components.examples[name].value,
  });
  return (data as Json).metadata.transaction_id;
}

const BAD_EXPORTS: [string, Json][] = [
  ["no body", {}],
  ["a member", { body: '{"reason":"x"}', bodySerializer: (b: string) => b }],
  [
    "another media type",
    { body: "{}", bodySerializer: (b: string) => b, headers: { "content-type": "text/plain" } },
  ],
];

describe("PUT export_and_archive with a body that is not an empty JSON object", () => {
  it("is 422 VALIDATION from the sandbox and the mock alike, a status the contract lists", async () => {
    expect(Object.keys(doc.paths[EXPORT].put.responses)).toContain("422");
    for (const [what, init] of BAD_EXPORTS) {
      const id = await manualVerification();
      const params = { path: { transaction_id: id } };
      const answers = await Promise.all(
        [
          sbx.client,
          createClient({ baseUrl: mock.url, ...CREDENTIALS, runtime: "server", retry: false }),
        ].map(async (client) => {
          const { error, response } = await (client as unknown as Loose).PUT!(EXPORT, { ...init, params });
          return { status: response.status, type: error?.error_type, errors: error?.validation_errors };
        }),
      );
      expect(answers[0], what).toEqual(answers[1]);
      expect(answers[0], what).toMatchObject({ status: 422, type: "VALIDATION" });
      expect(answers[0]?.errors, what).toBeTypeOf("object");
    }
    // The requests break the contract on purpose; the answers, 422s included, conform to it.
    expect(sbx.recorder.entries.filter((e) => e.response.status === 422)).toHaveLength(BAD_EXPORTS.length);
    const answers = (await trafficViolations(sbx.recorder.har())).flatMap((r) =>
      r.violations.filter((v) => !v.in.startsWith("request")),
    );
    expect(answers).toEqual([]);
  });

  it("still exports with the empty JSON object", async () => {
    const id = await manualVerification();
    const { response } = await sbx.client.PUT(EXPORT, {
      params: { path: { transaction_id: id } },
      body: {},
      parseAs: "arrayBuffer",
    });
    expect(response.status).toBe(200);
  });
});

/** A multipart body with one `file` part, its Content-Disposition and Content-Type as given. */
function form(disposition: string, type: string | undefined, content = "%PDF-1.4\n") {
  const head = `Content-Disposition: form-data; ${disposition}${type ? `\r\nContent-Type: ${type}` : ""}`;
  return {
    type: "multipart/form-data; boundary=b0undary",
    body: Buffer.from(`--b0undary\r\n${head}\r\n\r\n${content}\r\n--b0undary--\r\n`),
  };
}

async function upload(base: string, caseId: number, parts: ReturnType<typeof form>) {
  const path = `/api/v4/outsource_cases/${caseId}/upload`;
  const date = new Date().toISOString();
  const signature = createHmac("sha256", CREDENTIALS.secret)
    .update(Buffer.concat([Buffer.from(date), parts.body]))
    .digest("hex");
  const response = await fetch(base + path, {
    method: "POST",
    headers: {
      "svc-api-key": CREDENTIALS.apiKey,
      "svc-date": date,
      "svc-signature": signature,
      "content-type": parts.type,
    },
    body: parts.body,
  });
  return { status: response.status, body: (await response.json()) as Json };
}

async function eddCase(): Promise<number> {
  const { data } = await sbx.client.POST("/api/v4/outsource_cases", {
    body: { email: "case@example.com", entity_type: "company" },
  });
  return (data as Json).id;
}

describe("POST outsource_cases/{id}/upload with a file part without a file name", () => {
  it("is accepted when the part's type names an accepted format, and named after it", async () => {
    const id = await eddCase();
    const parts = form('name="file"', "application/pdf");
    const fromSandbox = await upload(sbx.running.url, id, parts);
    expect(fromSandbox.status).toBe(200);
    expect(fromSandbox.body.assets.at(-1).file_name).toBe("upload.pdf");
    expect((await upload(mock.url, id, parts)).status).toBe(200);
  });

  it.each([
    ["no type", undefined],
    ["a generic type", "application/octet-stream"],
    ["a type not accepted", "application/x-msdownload"],
  ])("is refused with %s, saying that the name and type are what is missing", async (_what, type) => {
    const id = await eddCase();
    const parts = form('name="file"', type);
    const answers = [await upload(sbx.running.url, id, parts), await upload(mock.url, id, parts)];
    for (const { status, body } of answers) {
      expect(status).toBe(400);
      expect(body.error_code).toBe("NO_FILE_UPLOADED");
      expect(body.message).toMatch(
        /^The part 'file' has no file name, and its Content-Type names no accepted/,
      );
    }
  });

  it("reads a file name written as a bare token (filename=scan.pdf)", async () => {
    const id = await eddCase();
    const answer = await upload(sbx.running.url, id, form("name=file; filename=scan.pdf", "application/pdf"));
    expect(answer.status).toBe(200);
    expect(answer.body.assets.at(-1).file_name).toBe("scan.pdf");
  });

  it("still says the part is missing when it is", async () => {
    const answer = await upload(sbx.running.url, await eddCase(), form('name="other"', "application/pdf"));
    expect(answer).toMatchObject({
      status: 400,
      body: { message: "No file was uploaded: the part 'file' is missing." },
    });
  });
});
