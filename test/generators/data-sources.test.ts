/**
 * DataSources rows are described with patternProperties (every member but the source's name holds
 * a match result or null) instead of additionalProperties, so that generators can type them. The
 * rows accepted must be exactly those the additionalProperties form accepted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Json, loadAsyncApi, loadOpenApi, validatorsFor } from "../support/contract.js";

const ROWS = "/components/schemas/DataSources/properties/rows/items";
const MATCH = ["Match", "NoMatch", "NotPresent", "NotSearched", "NA"];

/** The bundle with the rows described as before: named members, then additionalProperties. */
function withAdditionalProperties(document: Json): Json {
  const copy = structuredClone(document);
  const items = copy.components.schemas.DataSources.properties.rows.items;
  delete items.patternProperties;
  items.additionalProperties = { anyOf: [{ $ref: "#/components/schemas/MatchResult" }, { type: "null" }] };
  return copy;
}

const value = fc.oneof(
  fc.constantFrom<unknown>(...MATCH, null, "match", "", 0, true, {}, []),
  fc.string({ maxLength: 8 }),
);
const key = fc.oneof(
  fc.constantFrom("summary_of_data_sources_searched", "name", "date_of_birth", "address", "passport"),
  fc.string({ maxLength: 12 }),
);
const row = fc.dictionary(key, value, { maxKeys: 6 });

describe("DataSources rows", () => {
  for (const [name, load] of [
    ["OpenAPI", loadOpenApi],
    ["AsyncAPI", loadAsyncApi],
  ] as const)
    it(`accept exactly the rows the additionalProperties form accepted (${name} bundle)`, () => {
      const document = load();
      const now = validatorsFor(document)(ROWS);
      const before = validatorsFor(withAdditionalProperties(document))(ROWS);
      expect(now({ summary_of_data_sources_searched: "Registry", name: "Match", passport: null })).toBe(true);
      expect(now({ summary_of_data_sources_searched: "Registry", passport: "Registry" })).toBe(false);
      fc.assert(
        fc.property(row, (r) => {
          expect(now(r)).toBe(before(r));
        }),
        { numRuns: 500 },
      );
    });

  it("write out MatchResult's values, and no other", () => {
    const document = loadOpenApi();
    const pattern = Object.values<Json>(
      document.components.schemas.DataSources.properties.rows.items.patternProperties,
    );
    expect(pattern).toHaveLength(1);
    expect(pattern[0].enum).toEqual([...document.components.schemas.MatchResult.enum, null]);
  });
});
