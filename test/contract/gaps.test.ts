import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import {
  gapMarks,
  loadInterfaceDocument,
  loadOpenApi,
  normaliseSpace,
  usedExtensions,
} from "../support/contract.js";

const doc = loadOpenApi();
const normalise = normaliseSpace;
const interfaceText = normalise(loadInterfaceDocument());
const gaps = gapMarks(doc);

describe("x-gap marks", () => {
  it("are present", () => {
    expect(gaps.length).toBeGreaterThan(10);
  });

  it.each(gaps.map((g) => [g.pointer, g.gap] as const))(
    "%s quotes the document and states a choice",
    (_p, gap) => {
      expect(Object.keys(gap).sort()).toEqual(["choice", "quote"]);
      expect(typeof gap.choice === "string" && gap.choice.trim().length > 0).toBe(true);
      expect(interfaceText).toContain(normalise(gap.quote));
    },
  );

  it("cover each gap of the HTTP interface the document flags with 'not shown'", () => {
    const quotes = gaps.map((g) => normalise(g.gap.quote));
    const httpGaps = [
      "Success status codes of all operations: not shown.",
      "Signature computation and the format of the date header: not shown.",
      "Response body: not shown.",
      "whether POST is also accepted: not shown.",
      "Success response body: not shown.",
      "Fields of status_updates and checklist_items entries: not shown.",
      "Error bodies for 404 and other cases on endpoints beyond those listed: not shown.",
      "Rate limits and quotas: not shown.",
      "Deprecation policy and change history: not shown.",
    ];
    for (const words of httpGaps) {
      expect(interfaceText, "the list itself quotes the document").toContain(words);
      expect(
        quotes.some((q) => q.includes(words)),
        `no x-gap quotes "${words}"`,
      ).toBe(true);
    }
  });
});

describe("x- extensions", () => {
  const documented = readFileSync(fromRoot("openapi/extensions.md"), "utf8");
  const used = usedExtensions(doc);

  it.each([...used].map((x) => [x]))("%s is documented in openapi/extensions.md", (x) => {
    expect(documented).toMatch(new RegExp(`^## \`${x}\``, "m"));
  });
});
