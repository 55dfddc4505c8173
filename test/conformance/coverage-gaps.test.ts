// The `x-gap` locations of a contract: the search that skips the parts whose JSON names no `x-gap` finds
// exactly what a walk of every object finds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { httpGapLocations, webhookGapLocations } from "../../conformance/coverage/gaps.js";
import { escapeToken } from "../../src/contract/json-pointer.js";
import type { Json } from "../../src/contract/json.js";
import { loadAsyncApi, loadOpenApi } from "../support/contract.js";

/** Every object under `roots` that carries `x-gap`, each object walked (the search without its pruning). */
function everyGap(document: Json, roots: string[]): Set<string> {
  const out = new Set<string>();
  const visit = (node: Json, path: string[], depth: number) => {
    if (!Array.isArray(node) && Object.hasOwn(node, "x-gap")) out.add(`/${path.map(escapeToken).join("/")}`);
    if (depth === 64) return;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (key !== "x-gap" && child !== null && typeof child === "object")
        visit(child, [...path, key], depth + 1);
    }
  };
  for (const root of roots) {
    const node = Object.hasOwn(document, root) ? document[root] : undefined;
    if (node !== null && typeof node === "object") visit(node, [root], 0);
  }
  return out;
}

// Keys and strings that look like a gap without being one, and keys a pointer must escape.
const key = fc.constantFrom("x-gap", "paths", "components", "schemas", "a/b", "c~d", "x-gaps", "properties");
const text = fc.constantFrom('"x-gap"', "x-gap", "plain", '{"x-gap":1}');
const tree = fc.letrec<{ node: Json }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc.integer(),
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(key, tie("node"), { maxKeys: 4 }),
  ),
})).node;

describe("the x-gap search", () => {
  it("finds what a walk of every object finds, in any document", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("paths", "components", "channels"), tree), (document) => {
        expect(httpGapLocations(document)).toEqual(everyGap(document, ["paths", "components"]));
        const roots = ["channels", "operations", "components"];
        expect(webhookGapLocations(structuredClone(document))).toEqual(everyGap(document, roots));
      }),
      { numRuns: 500 },
    );
  });

  it("finds every gap of the contracts", () => {
    const openapi = loadOpenApi();
    const asyncapi = loadAsyncApi();
    expect(httpGapLocations(openapi).size).toBeGreaterThan(0);
    expect(httpGapLocations(openapi)).toEqual(everyGap(openapi, ["paths", "components"]));
    const roots = ["channels", "operations", "components"];
    expect(webhookGapLocations(asyncapi)).toEqual(everyGap(asyncapi, roots));
  });
});
