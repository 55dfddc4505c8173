import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { typeCheckFixture } from "../support/expect-errors.js";

describe("the client's types", () => {
  let result: ReturnType<typeof typeCheckFixture>;

  it("accept the typed calls, and every @ts-expect-error is needed", () => {
    result = typeCheckFixture(fromRoot("test/client/fixtures/typed-calls.ts"));
    expect(result.expected.length).toBeGreaterThanOrEqual(12);
    expect(result.fixture).toEqual([]);
  });

  it("reject each marked call on exactly the line after its @ts-expect-error", () => {
    result ??= typeCheckFixture(fromRoot("test/client/fixtures/typed-calls.ts"));
    const got = [...new Set(result.bare.map((d) => d.line))].sort((a, b) => a - b);
    expect(got).toEqual(result.expected);
  });
});
