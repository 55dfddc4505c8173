// Contract tests: the typed client drives every operation through the mock (success, missing
// credentials, an invalid body, every documented error), and the recorded traffic passes the
// conformance suite. The mock is stopped even when a test fails.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createConformanceChecker, type EntryResult } from "../../conformance/index.js";
import type { RunningMock } from "../../mock/server.js";
import { apiError, createClient, type IdvClient } from "../../src/index.js";
import { deref } from "../support/contract.js";
import { recordingFetch } from "../support/har-recorder.js";
import { startTestMock } from "../support/mock.js";
import { callOperation, doc, name, ops, pdf, requestFor, shapeOf } from "./requests.js";

let mock: RunningMock;
const good = recordingFetch();
const bad = recordingFetch();
let client: IdvClient;
/** A client whose requests lose one security header on the way out. */
let stripped: IdvClient;
/** A client for deliberately invalid bodies, recorded apart from the good traffic. */
let careless: IdvClient;

beforeAll(async () => {
  mock = await startTestMock();
  const common = {
    baseUrl: mock.url,
    apiKey: "test-key",
    secret: "test-secret",
    runtime: "server" as const,
    retry: false as const,
  };
  client = createClient({ ...common, fetch: good.fetch });
  careless = createClient({ ...common, fetch: bad.fetch });
  stripped = createClient({
    ...common,
    fetch: (request: Request, init?: RequestInit) => {
      const copy = new Request(request, init);
      copy.headers.delete(copy.headers.has("svc-secret") ? "svc-secret" : "svc-signature");
      return bad.fetch(copy);
    },
  });
});
afterAll(async () => {
  await mock?.close();
});

describe("typed calls", () => {
  it("a manual verification answers typed data", async () => {
    const { body } = requestFor(ops.find((o) => o.op.operationId === "createManualVerification")?.op);
    const result = await client.POST("/api/v2/manual_eidv", { body: body as never });
    expect(result.response.status).toBe(200);
    expectTypeOf(result.data?.results.overall).toEqualTypeOf<boolean | undefined>();
    expect(typeof result.data?.results.overall).toBe("boolean");
    expect(result.data?.metadata.transaction_id).toEqual(expect.any(String));
  });

  it("a PEP check error is a typed shape B error", async () => {
    const result = await client.POST("/api/v4/pep_checks", {
      body: { reference: "r-1", firstname: "Aroha", lastname: "Tipene", date_of_birth: "14/03/1985" },
      headers: { prefer: "code=422" },
    });
    const error = apiError(result);
    expect(error?.shape).toBe("B");
    if (error?.shape === "B") {
      expectTypeOf(error.status).toEqualTypeOf<number>();
      expect(error.code).toBe("NOT_CREATED");
    }
  });
});

describe("every operation through the client", () => {
  const isFile = (o: (typeof ops)[number]) =>
    !deref(doc, o.op.responses["200"]).content?.["application/json"];

  it.each(ops.filter((o) => !isFile(o)).map((o) => [name(o), o] as const))("%s succeeds", async (_n, o) => {
    const result = await callOperation(client, o.method, o.path);
    expect(result.response.status).toBe(200);
    expect(apiError(result)).toBeUndefined();
    expect(result.data).toEqual(expect.any(Object));
  });

  it.each(ops.filter(isFile).map((o) => [name(o), o] as const))("%s downloads its file", async (_n, o) => {
    const { body } = requestFor(o.op);
    const params = {
      path: Object.fromEntries(
        [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], m[1] === "id" ? 1042 : "tx-1"]),
      ),
    };
    const download = client.download as unknown as (
      m: string,
      p: string,
      i: object,
    ) => Promise<{ contentType: string; bytes: Uint8Array; filename?: string }>;
    const file = await download(o.method, o.path, body === undefined ? { params } : { params, body });
    expect(file.contentType).toBe("application/pdf");
    expect(file.filename).toMatch(/\.pdf$/);
    expect(new TextDecoder().decode(file.bytes.subarray(0, 5))).toBe("%PDF-");
  });

  it.each(ops.map((o) => [name(o), o] as const))(
    "%s without a credential → 401 in its shape",
    async (_n, o) => {
      const result = await callOperation(stripped, o.method, o.path);
      const error = apiError(result);
      expect(error?.status).toBe(401);
      expect(error?.shape).toBe(shapeOf(o.path));
      expect(error?.code).toBe(shapeOf(o.path) === "A" ? "AUTHENTICATION" : "AUTH_FAILED");
    },
  );

  const withJson = ops.filter((o) => requestFor(o.op).body !== undefined && o.op.responses["422"]);
  it.each(withJson.map((o) => [name(o), o] as const))(
    "%s with an invalid body → 422 in its shape",
    async (_n, o) => {
      const body = requestFor(o.op).body as Record<string, unknown>;
      body.member_the_contract_lacks = 1;
      const result = await callOperation(careless, o.method, o.path, {}, body);
      const error = apiError(result);
      expect(error?.status).toBe(422);
      expect(error?.shape).toBe(shapeOf(o.path));
    },
  );

  const documented = ops.flatMap((o) =>
    Object.keys(o.op.responses)
      .filter((s) => /^[45]/.test(s))
      .map((s) => [`${name(o)} ${s}`, o, Number(s)] as const),
  );
  it.each(documented)("%s via Prefer: code=", async (_n, o, status) => {
    const result = await callOperation(client, o.method, o.path, { prefer: `code=${status}` });
    const error = apiError(result);
    expect(error?.status).toBe(status);
    expect(error?.shape).toBe(shapeOf(o.path));
  });
});

describe("files through the client", () => {
  it("downloads a PDF with its file name", async () => {
    const file = await client.download("get", "/api/v4/pdf/pep_checks/{id}", {
      params: { path: { id: 1042 } },
    });
    expect(file.contentType).toBe("application/pdf");
    expect(file.filename).toMatch(/\.pdf$/);
    expect(new TextDecoder().decode(file.bytes.subarray(0, 5))).toBe("%PDF-");
  });

  it("uploads a file to an EDD case", async () => {
    const result = await client.upload("post", "/api/v4/outsource_cases/{id}/upload", {
      params: { path: { id: 1042 } },
      file: pdf(),
    });
    expect(result).toEqual(expect.objectContaining({ type: "outsource_case", id: expect.any(Number) }));
  });
});

describe("the recorded traffic against the contract", () => {
  /** Write the traffic as a HAR file and check it the way `idv-conformance check` does. */
  const check = async (recorder: ReturnType<typeof recordingFetch>) => {
    const file = join(mkdtempSync(join(tmpdir(), "idv-contract-tests-")), "traffic.har");
    writeFileSync(file, JSON.stringify(recorder.har()));
    const results: EntryResult[] = [];
    for await (const result of createConformanceChecker().checkFile(file, "har")) results.push(result);
    return results;
  };

  it("the client's good traffic has no violation", async () => {
    const results = await check(good);
    expect(results.length).toBe(good.entries.length);
    expect(results.length).toBeGreaterThanOrEqual(ops.length * 2);
    const failing = results.filter((r) => !r.ok);
    expect(failing.map((r) => ({ op: r.operationId, violations: r.violations }))).toEqual([]);
  });

  it("the deliberately bad traffic breaks only the request rules it was meant to", async () => {
    const results = await check(bad);
    expect(results.length).toBeGreaterThan(ops.length);
    for (const r of results) {
      expect(r.ok).toBe(false);
      const checks = new Set(r.violations.map((v) => v.check));
      expect(
        [...checks].every((c) => c === "auth_headers_present" || c === "request_body_schema"),
        [...checks].join(),
      ).toBe(true);
    }
    // No security header value reaches a report.
    expect(JSON.stringify(results)).not.toMatch(/test-secret|test-key/);
  });
});
