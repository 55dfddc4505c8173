// The one operation model and its router: every reader of the contract sees the same operations, and
// the servers route exactly as the linear scan they used before the router did.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { contractOperations } from "../../src/contract/operations.js";
import { UnresolvedRefError } from "../../src/contract/resolve-ref.js";
import { loadOperations, type Operation, routeOperation } from "../../src/server/operations.js";
import { decodeSegment } from "../../src/server/request-target.js";
import { loadOpenApi } from "../support/contract.js";

const control = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));

/** The servers' routing before the router: every operation's pattern tried in document order. */
function linearRoute(operations: Operation[], method: string, path: string) {
  const others: Operation[] = [];
  for (const op of operations) {
    const match = op.pattern.exec(path);
    if (!match) continue;
    const params = match.slice(1).map((p) => decodeSegment(p ?? ""));
    if (params.some((p) => p === undefined)) continue;
    if (op.method === method) return { op, params, others };
    others.push(op);
  }
  return { others };
}

const summary = (r: { op?: Operation; params?: (string | undefined)[]; others: Operation[] }) => ({
  op: r.op && `${r.op.method} ${r.op.template}`,
  params: r.params,
  others: r.others.map((o) => `${o.method} ${o.template}`),
});

describe.each([
  ["the contract", loadOpenApi()],
  ["the sandbox's control API", control],
])("routing %s", (_name, document) => {
  const operations = loadOperations(document);
  const segments = [...new Set(operations.flatMap((o) => o.template.split("/")))];
  const value = fc.constantFrom("1", "12", "abc", "a%20b", "%zz", "%", "x.pdf", "", ...segments);
  const method = fc.constantFrom("GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "get");
  const templated = fc
    .tuple(
      fc.constantFrom(...operations.map((o) => o.template)),
      fc.array(value, { minLength: 4, maxLength: 4 }),
    )
    .map(([template, values]) => template.replace(/\{\w+\}/g, () => values.shift() ?? "1"));
  const assembled = fc.array(value, { maxLength: 7 }).map((parts) => `/${parts.join("/")}`);

  it("routes every operation's own example path to it", () => {
    for (const op of operations) {
      const path = op.template.replace(/\{\w+\}/g, "7");
      expect(routeOperation(operations, op.method, path).op).toBe(op);
    }
  });

  it("answers as the linear scan did, for any method and path", () => {
    fc.assert(
      fc.property(method, fc.oneof(templated, assembled), (m, path) => {
        expect(summary(routeOperation(operations, m, path))).toEqual(
          summary(linearRoute(operations, m, path)),
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe("contractOperations", () => {
  it("lets an operation's parameter take the place of its path item's of the same name and location", () => {
    const [op] = contractOperations({
      paths: {
        "/x/{id}": {
          parameters: [
            { name: "id", in: "path", schema: { type: "string" } },
            { name: "q", in: "query" },
          ],
          get: { parameters: [{ name: "id", in: "path", schema: { type: "integer" } }], responses: {} },
        },
      },
    });
    expect(op?.parameters.map((p) => [p.level, p.node.name, p.pointer])).toEqual([
      ["operation", "id", "/paths/~1x~1{id}/get/parameters/0"],
      ["path", "q", "/paths/~1x~1{id}/parameters/1"],
    ]);
    expect(op?.pathItemParameters).toHaveLength(2);
  });

  it("follows $refs to where they lead and names where a broken one was met", () => {
    const document = {
      paths: {
        "/x": { $ref: "#/components/pathItems/X" },
      },
      components: {
        pathItems: { X: { post: { requestBody: { $ref: "#/components/requestBodies/B" }, responses: {} } } },
        requestBodies: {
          B: { required: true, content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    };
    const [op] = contractOperations(document);
    expect(op?.pointer).toBe("/components/pathItems/X/post");
    expect(op?.requestBody?.content[0]?.schemaPointer).toBe(
      "/components/requestBodies/B/content/application~1json/schema",
    );
    document.components.pathItems.X.post.responses = {
      200: { $ref: "#/components/responses/Nope" },
    } as never;
    const error = (() => {
      try {
        contractOperations(document);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnresolvedRefError);
    expect(error).toMatchObject({
      where: "POST /x response 200",
      message: "$ref #/components/responses/Nope points nowhere",
    });
  });

  it("visits the methods of a path item in OpenAPI's order, all eight of them", () => {
    const item = Object.fromEntries(
      ["trace", "patch", "head", "options", "delete", "post", "put", "get"].map((m) => [
        m,
        { responses: {} },
      ]),
    );
    expect(contractOperations({ paths: { "/x": item } }).map((o) => o.method)).toEqual([
      "GET",
      "PUT",
      "POST",
      "DELETE",
      "OPTIONS",
      "HEAD",
      "PATCH",
      "TRACE",
    ]);
  });
});
