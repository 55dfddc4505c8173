// The webhook helpers validate with code generated at build time (generated/webhook-validators.ts):
// it must be that of the committed contract, and judge exactly as ajv compiling the schemas does.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { webhookChannels } from "../../generated/webhook-events.js";
import { validators } from "../../generated/webhook-validators.js";
import { buildWebhookValidatorsModule } from "../../scripts/build-conformance.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { AjvCompiler } from "../../src/contract/schema-validator.js";
import { hostileJsonValue } from "../support/hostile.js";
import { asyncapi, exampleDeliveries } from "./deliveries.js";

const pointers = Object.values(webhookChannels).flatMap((channel) =>
  (Object.values(channel.events) as { payload: string; headers?: string }[]).flatMap((e) =>
    e.headers ? [e.payload, e.headers] : [e.payload],
  ),
);

/** A validator's verdict and errors, comparable across validators. */
function judge(pointer: string, compiled: (p: string) => (data: unknown) => boolean, data: unknown) {
  const validate = compiled(pointer) as ((data: unknown) => boolean) & { errors?: unknown };
  const ok = validate(structuredClone(data));
  // The document's id differs between the two (`asyncapi.json`, `contract-N.json`): the rest must not.
  const errors = JSON.stringify(validate.errors ?? null).replace(/"schemaPath":"[^"#]*#/g, '"schemaPath":"#');
  return { ok, errors };
}

describe("generated/webhook-validators.ts", () => {
  it("is fresh: regenerating it from generated/asyncapi.json changes nothing", () => {
    const committed = readFileSync(fromRoot("generated/webhook-validators.ts"), "utf8");
    expect(
      committed.startsWith("// Generated from generated/asyncapi.json by `npm run build:conformance`."),
    ).toBe(true);
    const fresh = buildWebhookValidatorsModule(asyncapi) === committed;
    expect(fresh, "generated/webhook-validators.ts is stale: run npm run build:conformance").toBe(true);
  });

  it("has a validator for every schema of every known event", () => {
    expect(pointers.filter((p) => !Object.hasOwn(validators, p))).toEqual([]);
  });

  it("judges the examples, and any value put in their place, as ajv compiling the schemas does", () => {
    const ajv = new AjvCompiler(asyncapi);
    const atRunTime = (p: string) => ajv.validator(p);
    const generated = (p: string) => validators[p]!;
    for (const d of exampleDeliveries()) {
      const pointer = pointers.find((p) =>
        p.startsWith(`/channels/${d.channel}/messages/${d.message}/payload`),
      )!;
      expect(judge(pointer, generated, d.payload)).toEqual(judge(pointer, atRunTime, d.payload));
      expect(judge(pointer, generated, d.payload).ok).toBe(true);
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...pointers),
        fc.constantFrom(...exampleDeliveries()),
        hostileJsonValue(3),
        fc.string(),
        (pointer, d, value, key) => {
          // The example with one hostile member added, and the hostile value alone.
          for (const data of [{ ...d.payload, [key]: value }, value]) {
            expect(judge(pointer, generated, data)).toEqual(judge(pointer, atRunTime, data));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
