import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateClientFiles, OUTPUTS } from "../../scripts/codegen/generate.js";
import { errorCodes, operationFacts } from "../../scripts/codegen/operation-facts.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadOpenApi } from "../support/contract.js";

const read = (file: string) => readFileSync(fromRoot(file), "utf8");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("generated client files", () => {
  it("are fresh: regenerating from generated/openapi.json gives no diff", async () => {
    const files = await generateClientFiles();
    expect(Object.keys(files).sort()).toEqual([...OUTPUTS].sort());
    for (const [file, text] of Object.entries(files))
      expect(read(file), `${file} is stale: npm run generate`).toBe(text);
  });

  it.each(["generated/types.ts", "generated/operations.ts"])(
    "%s starts with a do-not-edit header naming its source",
    (file) => {
      expect(read(file).split("\n")[0]).toBe(
        "// Generated from generated/openapi.json by `npm run generate`. Do not edit: change the source and regenerate.",
      );
    },
  );

  it("types.ts is exactly what the openapi-typescript CLI prints for the contract", () => {
    // Run outside the repository so the CLI does not pick up redocly.yaml's split source instead.
    const cwd = mkdtempSync(join(tmpdir(), "idv-ots-"));
    try {
      const cli = spawnSync(
        process.execPath,
        [
          fromRoot("node_modules/openapi-typescript/bin/cli.js"),
          fromRoot("generated/openapi.json"),
          "--default-non-nullable=false",
        ],
        { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      );
      expect(cli.status, cli.stderr).toBe(0);
      expect(read("generated/types.ts").split("\n").slice(1).join("\n")).toBe(cli.stdout);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("the manifest records the contract's hash, the tool versions and each file's hash", () => {
    const manifest = JSON.parse(read("generated/manifest.json"));
    expect(Object.keys(manifest)[0]).toBe("x-generated");
    expect(manifest.contract).toEqual({
      file: "generated/openapi.json",
      sha256: sha256(read("generated/openapi.json")),
    });
    expect(manifest.tools["openapi-typescript"]).toBe(
      JSON.parse(read("node_modules/openapi-typescript/package.json")).version,
    );
    expect(manifest.tools.typescript).toBe(JSON.parse(read("node_modules/typescript/package.json")).version);
    for (const file of ["generated/types.ts", "generated/operations.ts"]) {
      expect(manifest.files[file].sha256).toBe(sha256(read(file)));
    }
  });
});

describe("operation facts", () => {
  const schemes = {
    SvcApiKey: { type: "apiKey", in: "header", name: "Svc-API-Key" },
    SvcSecret: { type: "apiKey", in: "header", name: "Svc-Secret" },
    SvcDate: { type: "apiKey", in: "header", name: "Svc-Date" },
    SvcSignature: { type: "apiKey", in: "header", name: "Svc-Signature" },
    Cookie: { type: "apiKey", in: "cookie", name: "sid" },
  };
  const v2 = [{ SvcApiKey: [], SvcSecret: [] }];
  const v4 = [{ SvcApiKey: [], SvcDate: [], SvcSignature: [] }];
  const json = { content: { "application/json": { schema: { type: "object" } } } };
  const doc = (paths: object, security?: object) => ({
    openapi: "3.1.0",
    paths,
    components: { securitySchemes: schemes },
    ...(security ? { security } : {}),
  });

  it("reads the auth scheme from the security requirement, never from the path prefix", () => {
    const facts = operationFacts(
      doc({
        "/api/v2/signed": { get: { operationId: "a", security: v4, responses: { 200: json } } },
        "/api/v4/plain": { get: { operationId: "b", security: v2, responses: { 200: json } } },
        "/public": { get: { operationId: "c", security: [], responses: { 200: json } } },
      }),
    );
    expect(facts["GET /api/v2/signed"]).toMatchObject({
      auth: "v4",
      headers: ["Svc-API-Key", "Svc-Date", "Svc-Signature"],
    });
    expect(facts["GET /api/v4/plain"]).toMatchObject({ auth: "v2", headers: ["Svc-API-Key", "Svc-Secret"] });
    expect(facts["GET /public"]).toMatchObject({ auth: "none", headers: [] });
  });

  it("falls back to the document's security", () => {
    const facts = operationFacts(doc({ "/x": { get: { operationId: "x", responses: { 200: json } } } }, v4));
    expect(facts["GET /x"]?.auth).toBe("v4");
  });

  it("lists binary success media types, through $refs, ignoring JSON, text and errors", () => {
    const document = {
      ...doc({
        "/f": {
          get: {
            operationId: "f",
            security: v2,
            responses: {
              200: { $ref: "#/components/responses/File" },
              404: { content: { "application/octet-stream": {} } },
            },
          },
        },
      }),
    };
    (document.components as Record<string, unknown>).responses = {
      File: {
        content: {
          "application/pdf": {},
          "application/zip": {},
          "application/problem+json": {},
          "text/csv": {},
        },
      },
    };
    expect(operationFacts(document)["GET /f"]?.binary).toEqual(["application/pdf", "application/zip"]);
  });

  it("marks multipart bodies and reads x-file-constraints of their parts", () => {
    const limits = { maxBytesExclusive: 100, mediaTypes: ["image/png"], extensions: ["png"] };
    const facts = operationFacts(
      doc({
        "/u": {
          post: {
            operationId: "u",
            security: v4,
            requestBody: {
              content: {
                "multipart/form-data": {
                  schema: {
                    properties: {
                      note: { type: "string" },
                      scan: { type: "string", "x-file-constraints": limits },
                    },
                  },
                },
              },
            },
            responses: { 200: json },
          },
        },
      }),
    );
    expect(facts["POST /u"]).toMatchObject({ multipart: true, files: [{ part: "scan", ...limits }] });
  });

  it("holds the EDD upload's limits from the committed contract", () => {
    const facts = operationFacts(loadOpenApi());
    expect(facts["POST /api/v4/outsource_cases/{id}/upload"]?.files).toEqual([
      {
        part: "file",
        maxBytesExclusive: 10485760,
        mediaTypes: ["image/png", "image/jpeg", "text/plain", "application/pdf"],
        extensions: ["png", "jpg", "jpeg", "txt", "pdf"],
      },
    ]);
  });

  it.each([
    ["no operationId", { "/x": { get: { security: v2, responses: {} } } }, "GET /x: no operationId"],
    [
      "two security alternatives",
      { "/x": { get: { operationId: "x", security: [...v2, ...v4], responses: {} } } },
      "GET /x: 2 alternative security requirements",
    ],
    [
      "a cookie scheme",
      { "/x": { get: { operationId: "x", security: [{ Cookie: [] }], responses: {} } } },
      "GET /x: security scheme Cookie is not an apiKey header",
    ],
    [
      "a requirement that is neither v2 nor v4",
      { "/x": { get: { operationId: "x", security: [{ SvcApiKey: [] }], responses: {} } } },
      "GET /x: security requirement [SvcApiKey] is neither v2 nor v4",
    ],
    [
      "a dangling $ref",
      {
        "/x": {
          get: {
            operationId: "x",
            security: v2,
            responses: { 200: { $ref: "#/components/responses/Nope" } },
          },
        },
      },
      "GET /x response 200: $ref #/components/responses/Nope points at nothing",
    ],
  ])("fails clearly on %s", (_name, paths, message) => {
    expect(() => operationFacts(doc(paths))).toThrow(message);
  });
});

describe("errorCodes", () => {
  it("lists the enum and const values of error_type and error_code anywhere, once, sorted", () => {
    const document = {
      components: {
        responses: {
          a: {
            content: {
              "application/json": { schema: { properties: { error_code: { enum: ["B_CODE", "A_CODE"] } } } },
            },
          },
          b: {
            content: {
              "application/json": {
                schema: { allOf: [{ properties: { error_type: { const: "C_TYPE" } } }] },
              },
            },
          },
          c: {
            content: {
              "application/json": {
                schema: { properties: { error_code: { type: "string" }, other: { enum: ["NOT_A_CODE"] } } },
              },
            },
          },
        },
      },
      paths: {
        "/x": {
          get: {
            responses: {
              400: {
                content: {
                  "application/json": { schema: { properties: { error_code: { enum: ["A_CODE"] } } } },
                },
              },
            },
          },
        },
      },
    };
    expect(errorCodes(document)).toEqual(["A_CODE", "B_CODE", "C_TYPE"]);
  });

  it("finds the codes of the interface document's error tables in the contract", () => {
    expect(errorCodes(loadOpenApi())).toEqual(
      expect.arrayContaining(["ALREADY_ARCHIVED", "NOT_CREATED", "VALIDATION"]),
    );
  });
});
