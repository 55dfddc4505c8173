import { describe, expect, it } from "vitest";
import { deref, type Json, loadOpenApi, validatorsFor } from "../support/contract.js";
import { exampleDeliveries } from "./deliveries.js";

const openapi = loadOpenApi();
const validator = validatorsFor(openapi);

const cases = Object.entries<Json>(openapi.webhooks).flatMap(([name, item]) =>
  Object.entries<Json>(item.post.requestBody.content["application/json"].examples).map(
    ([key, example]) => [`${name} ${key}`, name, deref(openapi, example).value] as const,
  ),
);

describe("the OpenAPI webhooks section", () => {
  it.each(cases)("example %s validates against the request body schema (ajv)", (_n, name, value) => {
    const validate = validator(`/webhooks/${name}/post/requestBody/content/application~1json/schema`);
    const ok = validate(value);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("shows the same example payloads as the AsyncAPI messages", () => {
    const fromOpenApi = cases.map(([, , value]) => JSON.stringify(value)).sort();
    expect(fromOpenApi).toEqual(
      exampleDeliveries()
        .map((d) => d.body)
        .sort(),
    );
  });

  it("rejects a payload of the wrong event shape", () => {
    const validate = validator(
      "/webhooks/biometric-verification-event/post/requestBody/content/application~1json/schema",
    );
    expect(
      validate({ event: "created", reference: "r", transaction_id: "t", verification: { status: "pass" } }),
    ).toBe(false);
  });
});
