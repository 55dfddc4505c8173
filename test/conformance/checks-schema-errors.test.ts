// The messages of ajv's size keywords, as a report shows them: what is counted, and the limit's side.
import type { ErrorObject } from "ajv";
import { describe, expect, it } from "vitest";
import { FindingList } from "../../conformance/findings/findings.js";
import { reportSchemaErrors } from "../../conformance/checks/schema-errors.js";

/** An ajv error of a size keyword at `/name`, as ajv writes one. */
const sizeError = (keyword: string, limit: number): ErrorObject => ({
  keyword,
  instancePath: "/name",
  schemaPath: `#/properties/name/${keyword}`,
  params: { limit },
});

describe("schema errors of the size keywords", () => {
  it.each([
    ["minLength", 2, "must have at least 2 characters"],
    ["maxLength", 64, "must have at most 64 characters"],
    ["minItems", 1, "must have at least 1 items"],
    ["maxItems", 10, "must have at most 10 items"],
    ["minProperties", 1, "must have at least 1 members"],
    ["maxProperties", 3, "must have at most 3 members"],
  ] as const)("%s %d: %s", (keyword, limit, message) => {
    const findings = new FindingList();
    reportSchemaErrors(findings, "request.body", "request_body_schema", [sizeError(keyword, limit)], {});
    expect(findings.violations).toEqual([
      { in: "request.body", check: "request_body_schema", pointer: "/name", message },
    ]);
  });
});
