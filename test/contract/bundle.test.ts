import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bundleContract, lintContract, OPENAPI_SOURCE } from "../../scripts/contract/openapi-bundle.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadOpenApi } from "../support/contract.js";

describe("the OpenAPI bundle", () => {
  it("is fresh: the committed generated/ equals a new bundle of openapi/", () => {
    const bundle = bundleContract(OPENAPI_SOURCE);
    expect(readFileSync(fromRoot("generated/openapi.json"), "utf8")).toBe(bundle.json);
    expect(readFileSync(fromRoot("generated/openapi.yaml"), "utf8")).toBe(bundle.yaml);
  });

  it("has no external $ref", () => {
    const text = readFileSync(fromRoot("generated/openapi.json"), "utf8");
    const refs = [...text.matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r?.startsWith("#/"))).toEqual([]);
  });

  it("starts with a do-not-edit notice naming its source", () => {
    expect(readFileSync(fromRoot("generated/openapi.yaml"), "utf8").split("\n")[0]).toMatch(
      /^# Generated from openapi\/openapi\.yaml .*Do not edit/,
    );
    const json = loadOpenApi();
    expect(Object.keys(json)[0]).toBe("x-generated");
  });
});

describe("redocly lint", () => {
  it("passes on the contract with zero errors and zero warnings", () => {
    const result = lintContract(OPENAPI_SOURCE);
    expect(result.problems).toEqual([]);
  });

  it.each([
    ["an operation without a shared 4xx response", "no-shared-error.yaml", "idv/shared-error-response"],
    ["a schema using nullable", "nullable.yaml", "rule/no-nullable"],
    ["an operation without security", "no-security.yaml", "security-defined"],
    ["an unused component", "unused-component.yaml", "no-unused-components"],
  ])("rejects %s", (_name, fixture, ruleId) => {
    const result = lintContract(`test/fixtures/contract/${fixture}`);
    expect(result.problems.map((p) => p.ruleId)).toContain(ruleId);
  });
});
