// What an integer path segment is: decimal digits, no exponent, fraction, sign prefix or leading zero,
// within the safe integer range. The mock and the sandbox answer 404 to anything else, so the checker
// must refuse it too (docs/decisions/conformance.md).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checker, example } from "./support/exchanges.js";

/** The findings for the `id` path parameter of getEddCase when the recorded segment is `segment`. */
function idFindings(segment: string) {
  const x = example("getEddCase");
  x.request.path = x.request.path.replace(/\/[^/]+$/, `/${segment}`);
  return checker.checkExchange(x).violations.filter((v) => v.pointer === "/path/id");
}

describe("integer path parameters", () => {
  it.each(["1e3", "1E3", "01", "1.0", "+7", " 7", "0x10", "9007199254740993", "99999999999999999999", "7a"])(
    "refuses %j",
    (segment) => {
      expect(idFindings(encodeURIComponent(segment))).not.toEqual([]);
    },
  );

  it.each(["1", "7", "1042", "9007199254740991"])("accepts %j", (segment) => {
    expect(idFindings(segment)).toEqual([]);
  });

  it("accepts every safe integer ≥ 1 written in decimal, and refuses it written otherwise", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(idFindings(String(n))).toEqual([]);
        expect(idFindings(`0${n}`)).not.toEqual([]);
        expect(idFindings(n.toExponential())).not.toEqual([]);
      }),
      { numRuns: 100, seed: 9 },
    );
  });
});
