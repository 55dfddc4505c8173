// The types that carry the contract: trigger's events, and webhookId on the event that requires it.
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { typeCheckFixture } from "../support/expect-errors.js";

describe("the contract's types", () => {
  let result: ReturnType<typeof typeCheckFixture>;

  it("accept what the contract allows, and every @ts-expect-error is needed", () => {
    result = typeCheckFixture(fromRoot("test/types/fixtures/contract-types.ts"));
    expect(result.expected.length).toBe(4);
    expect(result.fixture).toEqual([]);
  });

  it("refuse each marked line on exactly the line after its @ts-expect-error", () => {
    result ??= typeCheckFixture(fromRoot("test/types/fixtures/contract-types.ts"));
    expect([...new Set(result.bare.map((d) => d.line))].sort((a, b) => a - b)).toEqual(result.expected);
  });
});
