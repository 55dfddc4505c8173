// The hostile generators must really produce what the properties rely on, and the pollution
// check must really fail on pollution: otherwise every property built on them passes vacuously.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assertPrototypesUntouched,
  containsCanary,
  deeplyNested,
  hostileJsonValue,
  invalidUtf8Json,
  prototypeSnapshot,
} from "./hostile.js";

const hasOwnProtoMember = (value: unknown, depth = 0): boolean => {
  if (value === null || typeof value !== "object" || depth > 10) return false;
  if (!Array.isArray(value) && Object.hasOwn(value, "__proto__")) return true;
  return Object.values(value).some((member) => hasOwnProtoMember(member, depth + 1));
};

describe("hostile generators", () => {
  it("produce own __proto__ members, not prototype changes", () => {
    const samples = fc.sample(hostileJsonValue(), { numRuns: 300, seed: 1 });
    expect(samples.some((value) => hasOwnProtoMember(value))).toBe(true);
  });

  it("produce bytes a fatal UTF-8 decoder refuses", () => {
    for (const bytes of fc.sample(invalidUtf8Json(), { numRuns: 50, seed: 2 })) {
      expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toThrow(TypeError);
    }
  });

  it("nest as deep as asked, with a canary inside", () => {
    const text = deeplyNested(5_000, "object");
    expect(text.startsWith('{"a":'.repeat(5_000))).toBe(true);
    expect(containsCanary(text)).toBe(true);
  });
});

describe("assertPrototypesUntouched", () => {
  it("fails when Object.prototype gains a member", () => {
    const before = prototypeSnapshot();
    Object.defineProperty(Object.prototype, "polluted", { value: 1, configurable: true });
    try {
      expect(() => assertPrototypesUntouched(before)).toThrow(/prototype/);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(() => assertPrototypesUntouched(before)).not.toThrow();
  });
});
