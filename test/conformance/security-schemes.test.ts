// The security a --spec asks for: the headers the check requires and the schemes coverage credits come
// from one list, so they agree for every kind of scheme, not only an apiKey in a header.
import { describe, expect, it } from "vitest";
import { ContractModel } from "../../conformance/checks/contract-model.js";
import { createConformanceChecker } from "../../conformance/index.js";
import type { Exchange } from "../../conformance/traffic/exchange.js";

const schemes = {
  Key: { type: "apiKey", in: "header", name: "X-Key" },
  Bearer: { type: "http", scheme: "bearer" },
  QueryKey: { type: "apiKey", in: "query", name: "key" },
  Linked: { $ref: "#/components/x-schemes/Key" },
};
const spec = (security: object[]) => ({
  openapi: "3.1.0",
  paths: { "/x": { get: { operationId: "getX", security, responses: { 204: { description: "none" } } } } },
  components: { securitySchemes: schemes, "x-schemes": { Key: schemes.Key } },
});
const model = (security: object[]) =>
  new ContractModel(spec(security), { validator: () => Object.assign(() => true, { errors: null }) as never })
    .operations[0];
const exchange = (headers: Record<string, string>): Exchange => ({
  index: 0,
  request: { method: "GET", path: "/x", query: {}, headers },
  response: { status: 204, headers: {} },
});

describe("ContractModel security", () => {
  it("names the header of every scheme it credits, alternative for alternative", () => {
    const op = model([{ Key: [], Bearer: [] }, { QueryKey: [] }, { Linked: [] }]);
    expect(op?.security).toEqual([["X-Key", "Authorization"], [], ["X-Key"]]);
    expect(op?.securitySchemes).toEqual([
      ["/components/securitySchemes/Key", "/components/securitySchemes/Bearer"],
      [],
      ["/components/securitySchemes/Linked"],
    ]);
  });

  it("requires the Authorization header of an http scheme", () => {
    const checker = createConformanceChecker({ spec: spec([{ Bearer: [] }]) });
    const missing = checker.checkExchange(exchange({}));
    expect(missing.violations).toMatchObject([{ check: "auth_headers_present", pointer: "/Authorization" }]);
    expect(checker.checkExchange(exchange({ authorization: "Bearer t" })).ok).toBe(true);
  });
});
