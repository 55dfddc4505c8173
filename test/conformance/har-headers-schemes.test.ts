// The recording's header redactor learns the credential headers and their spelling from the security
// schemes in one pass over them.
import { describe, expect, it } from "vitest";
import { HeaderRedactor } from "../../conformance/proxy/har-headers.js";
import { Vocabulary } from "../../conformance/findings/vocabulary.js";
import { loadOpenApi } from "../support/contract.js";

describe("the header redactor", () => {
  it("reads the security schemes once, and keeps their headers' spelling", () => {
    const doc = loadOpenApi();
    const vocabulary = new Vocabulary(doc);
    let passes = 0;
    const schemes = doc.components.securitySchemes;
    doc.components.securitySchemes = new Proxy(schemes, {
      ownKeys(target) {
        passes++;
        return Reflect.ownKeys(target);
      },
    });
    const redactor = new HeaderRedactor(doc, vocabulary);
    // One pass for the credential headers; the walks of the whole contract (header parameters and
    // response headers, example names) pass through the schemes too.
    expect(passes).toBe(3);
    const names = Object.values<{ type?: string; in?: string; name?: string }>(schemes)
      .filter((s) => s.type === "apiKey" && s.in === "header")
      .map((s) => s.name as string);
    expect(names.length).toBeGreaterThan(0);
    const recorded = redactor.redact(names.map((name) => [name.toLowerCase(), "x"]));
    expect(recorded.map((h) => h.name)).toEqual(names);
  });
});
