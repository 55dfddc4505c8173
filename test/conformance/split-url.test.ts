import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitUrl } from "../../conformance/traffic/normalize.js";

/** The query as the WHATWG URL parser reads it: the reference the quick path must match. */
function queryByUrlParser(url: string): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URL(url, "http://recorded.invalid").searchParams)
    (out[name] ??= []).push(value);
  return out;
}

// Query text with what real traffic and hostile recorders put there: escapes (valid and not), `+`,
// repeated names, `__proto__`, non-ASCII, and the characters the URL parser strips or re-encodes.
const queryChar = fc.constantFrom(
  ..."aZ09-_.~=&+%2F%41%zz%e2%82%ac€é__proto__;,/?:@!$'()*[]| \t\n#\\\u0000\u00a0".split(""),
);
const query = fc.array(queryChar, { maxLength: 40 }).map((chars) => chars.join(""));
const path = fc.constantFrom(
  "/api/v4/pep_checks",
  "/api/v2/send_text",
  "/a/./b",
  "/a%20b",
  "",
  "/x/../y",
  "/é",
);
const origin = fc.constantFrom(
  "",
  "https://idv.example.com",
  "http://10.0.0.12:8080",
  "HTTPS://Idv.Example.com",
);

describe("splitUrl", () => {
  it("reads every query as the URL parser does, whether or not it takes the quick path", () => {
    fc.assert(
      fc.property(origin, path, query, (o, p, q) => {
        const url = `${o}${p || "/"}?${q}`;
        expect({ ...splitUrl(url).query }).toEqual({ ...queryByUrlParser(url) });
      }),
      { numRuns: 2000 },
    );
  });

  it("gives a URL with a query the path it gives the same URL without one", () => {
    fc.assert(
      fc.property(origin, path, query, (o, p, q) => {
        const base = `${o}${p || "/"}`;
        // Printable ASCII: the URL parser would percent-encode the rest of a path, not a path alone.
        fc.pre(!/[^\x21-\x7e]|[\\#]/.test(`${base}?${q}`));
        expect(splitUrl(`${base}?${q}`).path).toBe(splitUrl(base).path);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps a name such as __proto__ a plain key of a map without a prototype", () => {
    const { query: q } = splitUrl("/api/v4/pep_checks?__proto__=1&constructor=2&__proto__=3");
    expect(Object.getPrototypeOf(q)).toBeNull();
    expect(q.__proto__).toEqual(["1", "3"]);
    expect(q.constructor).toEqual(["2"]);
  });
});
