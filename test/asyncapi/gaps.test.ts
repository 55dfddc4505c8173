import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import {
  gapMarks,
  loadAsyncApi,
  loadInterfaceDocument,
  normaliseSpace,
  usedExtensions,
} from "../support/contract.js";

const doc = loadAsyncApi();
const normalise = normaliseSpace;
const interfaceText = normalise(loadInterfaceDocument());
const gaps = gapMarks(doc);

describe("x-gap marks of the AsyncAPI document", () => {
  it.each(gaps.map((g) => [g.pointer, g.gap] as const))(
    "%s quotes the document and states a choice",
    (_p, gap) => {
      expect(Object.keys(gap).sort()).toEqual(["choice", "quote"]);
      expect(gap.choice.trim().length).toBeGreaterThan(0);
      expect(interfaceText).toContain(normalise(gap.quote));
    },
  );

  it("cover each gap of the webhooks the document flags", () => {
    const quotes = gaps.map((g) => normalise(g.gap.quote));
    for (const words of [
      "Retry count and schedule for this webhook: not shown.",
      "Signature of case webhook deliveries: not shown.",
      "Other values of event and the content of verification for this event: not shown.",
      "the service {id (integer), name (string), external_id (string or null), approval_status (approved or denied)}",
      "succeeds on a 2xx or 3xx response, fails on 4xx or 5xx.",
    ]) {
      expect(interfaceText, "the list itself quotes the document").toContain(words);
      expect(
        quotes.some((q) => q.includes(words)),
        `no x-gap quotes "${words}"`,
      ).toBe(true);
    }
  });
});

describe("x- extensions of the AsyncAPI document", () => {
  const documented = readFileSync(fromRoot("openapi/extensions.md"), "utf8");
  const used = usedExtensions(doc);

  it("include x-delivery and x-gap", () => {
    expect(used).toContain("x-delivery");
    expect(used).toContain("x-gap");
  });

  it.each([...used].map((x) => [x]))("%s is documented in openapi/extensions.md", (x) => {
    expect(documented).toMatch(new RegExp(`^## \`${x}\``, "m"));
  });
});
