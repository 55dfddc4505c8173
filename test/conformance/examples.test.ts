// No false alarms: every exchange the contract's own examples describe conforms, without warnings.
import { describe, expect, it } from "vitest";
import { checker, examples } from "./support/exchanges.js";

describe("the contract's examples", () => {
  it("cover every operation", () => {
    expect(new Set(examples.map((e) => e.operationId)).size).toBe(20);
  });

  it.each(examples.map((e) => [`${e.operationId} ${e.status} ${e.mediaType ?? ""}`, e] as const))(
    "%s conforms",
    (_, e) => {
      const result = checker.checkExchange(structuredClone(e.exchange));
      expect(result.violations).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(result.operationId).toBe(e.operationId);
    },
  );
});
