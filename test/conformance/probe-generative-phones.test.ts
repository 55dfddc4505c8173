// Phone numbers in the generative phase's bodies (conformance/probe/generative-phones.ts): a drawn
// body's phone members are the contract's own example numbers, whatever was drawn; a body whose
// broken rule is the phone member's goes to this machine only.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bundledContract } from "../../conformance/checks/load-contract.js";
import { probeOperations } from "../../conformance/probe/contract-operations.js";
import { bodyArbitraries, type BrokenBody } from "../../conformance/probe/generate/index.js";
import { examplePhones, withExamplePhones } from "../../conformance/probe/generative-phones.js";

const document = bundledContract();
const phones = examplePhones(document);

/** Every phone string of a JSON value, by walking it. */
function phoneValues(value: unknown): string[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, member]) =>
    /phone/i.test(key) && typeof member === "string" ? [member] : phoneValues(member),
  );
}

// The operations whose drawn bodies hold a phone member, found by drawing them.
const withPhones = probeOperations(document).filter(
  (op) =>
    op.body?.mediaType === "application/json" &&
    fc
      .sample(bodyArbitraries(document, op.body, "m").valid, { numRuns: 200, seed: 1 })
      .some((b) => phoneValues(b.value).length > 0),
);

describe("phone numbers in drawn bodies", () => {
  it("are found in the contract's examples, and drawn bodies hold them", () => {
    expect(phones.size).toBeGreaterThan(0);
    expect(withPhones.map((op) => op.operationId)).toContain("createBiometricVerification");
    for (const p of [...phones.values()].flat())
      expect(JSON.stringify(document.components.examples)).toContain(p);
  });

  it.each(withPhones.map((op) => [op.operationId, op]))(
    "%s: every valid body sent holds only the examples' numbers",
    (_, op) => {
      const { valid } = bodyArbitraries(document, op.body!, "m");
      fc.assert(
        fc.property(valid, fc.boolean(), (drawn, loopback) => {
          const sent = withExamplePhones(drawn, phones, loopback)!;
          const sentValue = JSON.parse(sent.body.bytes.toString("utf8"));
          for (const p of phoneValues(sentValue)) expect([...phones.values()].flat()).toContain(p);
          expect(phoneValues(sentValue)).toEqual(phoneValues(sent.value));
        }),
        { numRuns: 200 },
      );
    },
  );

  it("sends a body whose broken rule is the phone member's to this machine only", () => {
    const drawn: BrokenBody = {
      kind: "pattern",
      rule: "/contact_phone off its pattern",
      value: { contact_phone: "12" },
      body: { bytes: Buffer.from('{"contact_phone":"12"}'), contentType: "application/json" },
    };
    expect(withExamplePhones(drawn, phones, true)).toBe(drawn);
    expect(withExamplePhones(drawn, phones, false)).toBeUndefined();
    const elsewhere = withExamplePhones(
      { ...drawn, rule: "/reference longer than its maxLength (50)" },
      phones,
      false,
    )!;
    expect(JSON.parse(elsewhere.body.bytes.toString("utf8"))).toEqual({
      contact_phone: phones.get("contact_phone")![0],
    });
  });
});
