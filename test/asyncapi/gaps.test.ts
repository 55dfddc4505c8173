import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { type Json, loadInterfaceDocument } from "../support/contract.js";

const doc: Json = JSON.parse(readFileSync(fromRoot("generated/asyncapi.json"), "utf8"));
const normalise = (s: string) => s.replace(/\s+/g, " ").trim();
const interfaceText = normalise(loadInterfaceDocument());

/** Every value under a matching key, with its JSON pointer. */
function collect(
  node: Json,
  match: (key: string) => boolean,
  pointer = "",
): { pointer: string; value: Json }[] {
  if (node === null || typeof node !== "object") return [];
  return Object.entries<Json>(node).flatMap(([k, v]) => {
    const at = `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    return [...(match(k) ? [{ pointer: at, value: v }] : []), ...collect(v, match, at)];
  });
}

const gaps = collect(doc, (k) => k === "x-gap").flatMap(({ pointer, value }) =>
  (Array.isArray(value) ? value : [value]).map((gap: Json, i: number) => ({
    pointer: `${pointer}/${i}`,
    gap,
  })),
);

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
  const used = new Set(
    collect(doc, (k) => k.startsWith("x-")).map((f) => f.pointer.split("/").pop() as string),
  );

  it("include x-delivery and x-gap", () => {
    expect(used).toContain("x-delivery");
    expect(used).toContain("x-gap");
  });

  it.each([...used].map((x) => [x]))("%s is documented in openapi/extensions.md", (x) => {
    expect(documented).toMatch(new RegExp(`^## \`${x}\``, "m"));
  });
});
