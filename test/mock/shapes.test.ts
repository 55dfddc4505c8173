// The mock refuses requests as the service does, in the operation's error shape, and serves
// real files; every body it sends validates against the contract's response for its status.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import {
  deref,
  type Json,
  jsonRequestExamples,
  loadOpenApi,
  operations,
  pointerToken,
  validatorsFor,
} from "../support/contract.js";
import { concretePath, credentialsFor, startTestMock } from "../support/mock.js";

const doc = loadOpenApi();
const validator = validatorsFor(doc);
const ops = operations(doc);
let mock: RunningMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(async () => {
  await mock?.close();
});

async function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: unknown } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | FormData | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
  }
  const res = await fetch(`${mock.url}${path}`, { method: method.toUpperCase(), headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString("utf8")) };
}

/** Assert a JSON error body validates against the operation's documented response for its status. */
function expectDocumented(pointer: string, op: Json, status: number, body: unknown) {
  expect(Object.keys(op.responses), `status ${status} is documented`).toContain(String(status));
  const responseRef =
    op.responses[String(status)].$ref?.replace(/^#/, "") ?? `${pointer}/responses/${status}`;
  const validate = validator(`${responseRef}/content/${pointerToken("application/json")}/schema`);
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

/** A valid body for an operation: its first JSON example, or a small PDF for a file upload. */
const firstRequestExample = (op: Json) => {
  if (deref(doc, op.requestBody)?.content?.["multipart/form-data"]) {
    const form = new FormData();
    form.set("file", new Blob(["%PDF-1.4\n"], { type: "application/pdf" }), "passport.pdf");
    return form;
  }
  return jsonRequestExamples(doc, op)?.[0];
};

describe("missing credentials", () => {
  it.each(ops.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s → 401 in its shape",
    async (_n, o) => {
      const res = await call(o.method, concretePath(o.path), { body: firstRequestExample(o.op) });
      expect(res.status).toBe(401);
      const body = res.json();
      expect(body.error_type ?? body.error_code).toBe(
        o.path.startsWith("/api/v2/manual_eidv") ? "AUTHENTICATION" : "AUTH_FAILED",
      );
      expectDocumented(o.pointer, o.op, 401, body);
    },
  );
});

describe("invalid bodies", () => {
  const withJson = ops.filter(
    (o) => deref(doc, o.op.requestBody)?.content?.["application/json"] && o.op.responses["422"],
  );

  it.each(withJson.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s → 422 in its shape",
    async (_n, o) => {
      const body = firstRequestExample(o.op);
      body.unexpected_member = true;
      const res = await call(o.method, concretePath(o.path), { headers: credentialsFor(o.path), body });
      expect(res.status).toBe(422);
      const json = res.json();
      expectDocumented(o.pointer, o.op, 422, json);
      if (o.path.startsWith("/api/v2/manual_eidv"))
        expect(json.validation_errors).toEqual({ unexpected_member: ["is not a permitted member"] });
    },
  );

  it("answers a body that is not JSON with 422, never 5xx", async () => {
    const res = await call("post", "/api/v4/pep_checks", {
      headers: credentialsFor("/api/v4/pep_checks"),
      body: "{not json",
    });
    expect(res.status).toBe(422);
    expect(res.json()).toEqual({ error_code: "NOT_CREATED", message: "The request body is not valid JSON." });
  });

  it("keys manual validation errors like the request, one array per failing field", async () => {
    const body = firstRequestExample(ops.find((o) => o.op.operationId === "createManualVerification")?.op);
    body.individual.first_name = "A".repeat(65);
    delete body.individual.last_name;
    const res = await call("post", "/api/v2/manual_eidv", { headers: credentialsFor("/api/v2/"), body });
    expect(res.json().validation_errors.individual).toEqual({
      first_name: ["is too long (maximum is 64 characters)"],
      last_name: ["can't be blank"],
    });
  });
});

describe("documented errors through Prefer: code=", () => {
  const cases = ops.flatMap((o) =>
    Object.keys(o.op.responses)
      .filter((s) => /^[45]/.test(s))
      .map((s) => [`${o.method.toUpperCase()} ${o.path} ${s}`, o, Number(s)] as const),
  );
  it.each(cases)("%s", async (_n, o, status) => {
    const res = await call(o.method, concretePath(o.path), {
      headers: { ...credentialsFor(o.path), prefer: `code=${status}` },
      body: firstRequestExample(o.op),
    });
    expect(res.status).toBe(status);
    expectDocumented(o.pointer, o.op, status, res.json());
  });
});

describe("files", () => {
  const binary = ops.filter((o) => deref(doc, o.op.responses["200"]).content?.["application/pdf"]);

  it.each(binary.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    "%s serves a real PDF",
    async (_n, o) => {
      const res = await call(o.method, concretePath(o.path), {
        headers: credentialsFor(o.path),
        body: firstRequestExample(o.op),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(res.headers.get("content-disposition")).toMatch(/filename="[^"]+\.pdf"/);
      expect(res.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    },
  );

  it("serves the title search as a zip on request", async () => {
    const res = await call("get", "/api/v4/properties/7/res", {
      headers: { ...credentialsFor("/api/v4/"), accept: "application/zip" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(/\.zip"/);
    expect(res.bytes.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  });
});

describe("EDD upload", () => {
  const upload = async (form: FormData) => {
    const res = await fetch(`${mock.url}/api/v4/outsource_cases/1042/upload`, {
      method: "POST",
      headers: credentialsFor("/api/v4/"),
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };

  it("accepts one pdf below 10 MB", async () => {
    const form = new FormData();
    form.set("file", new Blob(["%PDF-1.4\n"], { type: "application/pdf" }), "passport.pdf");
    expect((await upload(form)).status).toBe(200);
  });

  it.each([
    ["no file part", () => new FormData(), "NO_FILE_UPLOADED"],
    [
      "a file of 10 MB",
      () => {
        const form = new FormData();
        form.set(
          "file",
          new Blob([new Uint8Array(10 * 1024 * 1024)], { type: "application/pdf" }),
          "big.pdf",
        );
        return form;
      },
      "FILE_SIZE_TOO_BIG",
    ],
    [
      "an executable",
      () => {
        const form = new FormData();
        form.set("file", new Blob(["MZ"], { type: "application/x-msdownload" }), "setup.exe");
        return form;
      },
      "NO_FILE_UPLOADED",
    ],
  ])("refuses %s", async (_n, make, code) => {
    const res = await upload(make());
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(code);
  });
});

describe("browser scripts", () => {
  it("refuses key and secret sent from a browser script with CRED_AT_RISK", async () => {
    const res = await call("post", "/api/v2/send_text", {
      headers: { ...credentialsFor("/api/v2/"), origin: "https://shop.example.net" },
      body: firstRequestExample(ops.find((o) => o.op.operationId === "createBiometricVerification")?.op),
    });
    expect(res.status).toBe(400);
    expect(res.json().error_code).toBe("CRED_AT_RISK");
  });
});

describe("odd requests never get a 5xx or another shape", () => {
  const v4 = credentialsFor("/api/v4/");

  it("ignores a body sent to an operation that takes none", async () => {
    // fetch will not send a GET with a body; node:http will, as curl does.
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${mock.url}/api/v4/outsource_cases/1`, {
        method: "GET",
        headers: { ...v4, "content-type": "application/json", "content-length": "15" },
      });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on("error", reject);
      req.end("John Smith 1985");
    });
    expect(status).toBe(200);
    expect(text).not.toContain("John Smith");
  });

  it("answers a broken percent-encoding in the path with 404", async () => {
    const res = await call("get", "/api/v4/outsource_cases/%E0%A4%A", { headers: v4 });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ error_code: "NOT_FOUND", message: expect.any(String) });
  });

  it.each([["example=no-such-example"], ["code=599"], ["code=200, example=no-such-example"]])(
    "answers Prefer: %s with 400 MOCK_PREFERENCE",
    async (prefer) => {
      const res = await call("get", "/api/v4/outsource_cases/1", { headers: { ...v4, prefer } });
      expect(res.status).toBe(400);
      expect(res.json().error_code).toBe("MOCK_PREFERENCE");
    },
  );

  it("answers HEAD like GET, without a body", async () => {
    const res = await call("head", "/api/v4/pdf/pep_checks/1", { headers: v4 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.bytes.length).toBe(0);
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const res = await call("delete", "/api/v4/pep_checks", { headers: v4 });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.json().error_code).toBe("METHOD_NOT_ALLOWED");
  });

  it("checks credentials before reading an oversized body", async () => {
    const big = new Uint8Array(13 * 1024 * 1024);
    const res = await fetch(`${mock.url}/api/v4/outsource_cases/1/upload`, { method: "POST", body: big });
    expect(res.status).toBe(401);
    const withKeys = await fetch(`${mock.url}/api/v4/outsource_cases/1/upload`, {
      method: "POST",
      headers: { ...v4, "content-type": "multipart/form-data; boundary=x" },
      body: big,
    });
    expect(withKeys.status).toBe(400);
    expect((await withKeys.json()).error_code).toBe("FILE_SIZE_TOO_BIG");
  });
});
