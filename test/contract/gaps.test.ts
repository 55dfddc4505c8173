import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { type Json, loadInterfaceDocument, loadOpenApi } from "../support/contract.js";

const doc = loadOpenApi();
const normalise = (s: string) => s.replace(/\s+/g, " ").trim();
const interfaceText = normalise(loadInterfaceDocument());

interface Found {
  pointer: string;
  value: Json;
}

/** Every value under a key, with its JSON pointer. */
function collect(node: Json, match: (key: string) => boolean, pointer = ""): Found[] {
  if (node === null || typeof node !== "object") return [];
  const out: Found[] = [];
  for (const [k, v] of Object.entries<Json>(node)) {
    const at = `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (match(k)) out.push({ pointer: at, value: v });
    out.push(...collect(v, match, at));
  }
  return out;
}

const gaps = collect(doc, (k) => k === "x-gap").flatMap(({ pointer, value }) =>
  (Array.isArray(value) ? value : [value]).map((gap: Json, i: number) => ({
    pointer: `${pointer}/${i}`,
    gap,
  })),
);

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
  const used = new Set(
    collect(doc, (k) => k.startsWith("x-")).map((f) => f.pointer.split("/").pop() as string),
  );

  it.each([...used].map((x) => [x]))("%s is documented in openapi/extensions.md", (x) => {
    expect(documented).toMatch(new RegExp(`^## \`${x}\``, "m"));
  });
});
