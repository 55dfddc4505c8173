// The bundle holds what the interface document describes: every endpoint row, every error code and
// error type, every request field. Read from the document itself, so a forgotten row fails here.
import { describe, expect, it } from "vitest";
import { deref, type Json, loadInterfaceDocument, loadOpenApi, operations } from "../support/contract.js";

const doc = loadOpenApi();
const text = loadInterfaceDocument();

/** The text of a `##` or `###` section, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.match(/^#+/)?.[0].length ?? 2;
  const rest = text.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

/** Table rows of a section, as arrays of trimmed cells, header and separator dropped. */
function rows(body: string): string[][] {
  return body
    .split("\n")
    .filter((l) => l.startsWith("|") && !/^\|[-| ]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
}

const endpointRows = rows(section("## Endpoints")).filter((r) =>
  /^(GET|PUT|POST|PATCH|DELETE)$/.test(r[0] ?? ""),
);
const contractOps = new Set(operations(doc).map((o) => `${o.method.toUpperCase()} ${o.path}`));

describe("endpoints", () => {
  it("the document lists 21 endpoint rows", () => {
    expect(endpointRows).toHaveLength(21);
  });

  it.each(endpointRows.map((r) => [`${r[0]} ${r[1]}`]))("%s is an operation of the contract", (row) => {
    expect(contractOps).toContain(row.replace(/:(\w+)/g, "{$1}"));
  });

  it("every operation has an operationId, a summary, a description and one tag", () => {
    for (const { op } of operations(doc)) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary?.length).toBeGreaterThan(0);
      expect(op.description?.length).toBeGreaterThan(0);
      expect(op.tags).toHaveLength(1);
    }
  });

  it("v2 operations need the key and the secret; v4 operations the key, the date and the signature", () => {
    for (const { path, op } of operations(doc)) {
      const want = path.startsWith("/api/v2/")
        ? ["SvcApiKey", "SvcSecret"]
        : ["SvcApiKey", "SvcDate", "SvcSignature"];
      expect(op.security.map((req: Json) => Object.keys(req).sort())).toEqual([want]);
    }
  });
});

/** Every enum value an error response body narrows `member` to, across the contract. */
function errorValues(member: "error_code" | "error_type"): Set<string> {
  const out = new Set<string>();
  for (const { op } of operations(doc)) {
    for (const response of Object.values<Json>(op.responses)) {
      const schema = deref(doc, deref(doc, response).content?.["application/json"]?.schema);
      for (const part of schema?.allOf ?? [])
        for (const v of part.properties?.[member]?.enum ?? []) out.add(v);
    }
  }
  return out;
}

describe("errors", () => {
  const errors = section("## Errors");
  const shapeB = rows(errors.slice(errors.indexOf("Shape B"))).filter(
    (r) => /^\d{3}$/.test(r[0] ?? "") && /^[A-Z_]+$/.test(r[1] ?? ""),
  );

  it.each(shapeB.map((r) => [r[1], r[0]]))(
    "error code %s (HTTP %s) is answered by some operation",
    (code, status) => {
      const answering = operations(doc).filter(({ op }) => {
        const response = op.responses[String(status)];
        if (!response) return false;
        const schema = deref(doc, deref(doc, response).content?.["application/json"]?.schema);
        return (schema?.allOf ?? []).some((p: Json) => p.properties?.error_code?.enum?.includes(code));
      });
      expect(answering.length, `${code} under ${status}`).toBeGreaterThan(0);
    },
  );

  it("every shape A error type is answered by manual verification", () => {
    const types = errorValues("error_type");
    for (const t of ["AUTHENTICATION", "AUTHORIZATION", "VALIDATION", "SYSTEM"]) expect(types).toContain(t);
  });

  it("manual verification answers shape A and every other operation shape B", () => {
    for (const { path, op } of operations(doc)) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        const schema = deref(doc, deref(doc, response).content["application/json"].schema);
        const base = schema.allOf[0].$ref;
        const want = path.startsWith("/api/v2/manual_eidv") ? "ManualVerificationError" : "ServiceError";
        expect(base, `${path} ${status}`).toBe(`#/components/schemas/${want}`);
      }
    }
  });
});

/** Whether a dotted member path exists in a schema, following $ref, allOf, oneOf, anyOf and if/then. */
function hasMember(schema: Json, path: string[]): boolean {
  const s = deref(doc, schema);
  if (!s || typeof s !== "object") return false;
  if (path.length === 0) return true;
  const [head, ...rest] = path as [string, ...string[]];
  if (s.properties?.[head] && hasMember(s.properties[head], rest)) return true;
  const branches = [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? []), s.then, s.else].filter(
    Boolean,
  );
  return branches.some((b: Json) => hasMember(b, path));
}

const requestTables: [string, string][] = [
  ["### Manual verification request", "createManualVerification"],
  ["### Biometric verification (request", "createBiometricVerification"],
  ["### EDD case resource", "createEddCase"],
];

describe("request fields", () => {
  for (const [heading, operationId] of requestTables) {
    const fields = rows(section(heading))
      .map((r) => r[0] ?? "")
      .filter((f) => /^[a-z_][a-z0-9_.]*$/.test(f));
    const op = operations(doc).find((o) => o.op.operationId === operationId)?.op;
    const schema = deref(doc, op?.requestBody)?.content["application/json"].schema;

    it.each(fields.map((f) => [f]))(`${operationId}: %s`, (field) => {
      expect(hasMember(schema, field.split(".")), field).toBe(true);
    });
  }
});
