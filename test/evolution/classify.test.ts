import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { classifyChanges, type ContractChange } from "../../scripts/evolution/classify.js";
import type { Json } from "../../scripts/evolution/schema-diff.js";

const fixture = (name: string) => parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8"));
const base = fixture("base.yaml");

interface Expected {
  audience: "client" | "receiver";
  breaking: boolean;
  says: string;
}
interface Fixture {
  kind: string;
  edits: ({ set: string; value: Json } | { delete: string })[];
  forward: Expected[];
  reverse: Expected[];
}

/** base.yaml with a fixture's edits applied at their JSON Pointers. */
function edited(edits: Fixture["edits"]): Json {
  const doc = structuredClone(base);
  for (const edit of edits) {
    const pointer = "set" in edit ? edit.set : edit.delete;
    const tokens = pointer
      .slice(1)
      .split("/")
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = tokens.pop()!;
    let parent = doc;
    for (const t of tokens) parent = parent[t];
    if (parent === undefined) throw new Error(`no parent for ${pointer}`);
    if ("set" in edit) parent[last] = edit.value;
    else if (!(last in parent)) throw new Error(`nothing to delete at ${pointer}`);
    else delete parent[last];
  }
  return doc;
}

/** Every expected change is found as expected, and nothing else breaks anyone. */
function expectChanges(found: ContractChange[], expected: Expected[]) {
  for (const e of expected) {
    const match = found.find((c) => c.text.includes(e.says));
    expect(match, `"${e.says}" in:\n${found.map((c) => c.text).join("\n")}`).toBeDefined();
    expect({ audience: match!.audience, breaking: match!.breaking }).toEqual({
      audience: e.audience,
      breaking: e.breaking,
    });
  }
  const unexpected = found.filter(
    (c) => c.breaking && !expected.some((e) => e.breaking && c.text.includes(e.says)),
  );
  expect(unexpected.map((c) => c.text)).toEqual([]);
}

describe("classifyChanges, on one change of each kind in both directions", () => {
  const fixtures = fixture("changes.yaml") as Fixture[];

  it("has a fixture of every kind the issue names", () => {
    const kinds = fixtures.map((f) => f.kind);
    for (const kind of [
      "removed operation",
      "new required request member",
      "narrowed type (request)",
      "new response enum value",
      "removed response enum value",
      "removed event",
      "new required payload member",
      "renamed header",
    ])
      expect(kinds).toContain(kind);
  });

  it("finds nothing between a contract and itself", () => {
    expect(classifyChanges(base, structuredClone(base))).toEqual([]);
  });

  it.each(fixtures.map((f) => [f.kind, f] as const))("%s", (_kind, f) => {
    const after = edited(f.edits);
    expectChanges(classifyChanges(base, after), f.forward);
    expectChanges(classifyChanges(after, base), f.reverse);
  });
});

describe("classifyChanges, on schemas that refer to themselves or wrap themselves", () => {
  it("stops at a recursive reference", () => {
    const tree = (extra: Json) => ({
      openapi: {
        paths: {
          "/t": {
            get: {
              responses: {
                "200": { content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } },
              },
            },
          },
        },
        components: {
          schemas: {
            Node: { type: "object", properties: { child: { $ref: "#/components/schemas/Node" }, ...extra } },
          },
        },
      },
    });
    const changes = classifyChanges(tree({}), tree({ kind: { enum: ["a"] } }));
    expect(changes.map((c) => c.text)).toEqual([
      "GET /t: response 200 body member `kind` is new and optional.",
    ]);
  });

  it("reads a member wrapped in oneOf [it, null] as 'may now be null', breaking for readers only", () => {
    const withMember = (schema: Json) =>
      edited([{ set: "/openapi/components/schemas/Check/properties/id", value: schema }]);
    const changes = classifyChanges(
      withMember({ type: "integer" }),
      withMember({ oneOf: [{ type: "integer" }, { type: "null" }] }),
    );
    expect(changes.map((c) => [c.breaking, c.text])).toEqual([
      [true, "GET /checks: response 200 body member `[].id` may now be null."],
      [true, "POST /checks: response 200 body member `id` may now be null."],
    ]);
  });
});
