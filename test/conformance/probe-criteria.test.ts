// Arazzo's simple condition syntax as the probe reads it: each operator, missing members as null,
// literals, and any text or any answer read without throwing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holds, type StepValues, valueOf } from "../../conformance/probe/workflow-criteria.js";
import { failedCriteria } from "../../conformance/probe/workflow-step.js";

const values = (over: Partial<StepValues> = {}): StepValues => ({
  inputs: new Map([["who", { name: "Aroha" }]]),
  steps: new Map([
    [
      "create",
      new Map<string, unknown>([
        ["id", 41],
        ["transactionId", "tx-1"],
      ]),
    ],
  ]),
  statusCode: 400,
  responseBody: { error_code: "ALREADY_ARCHIVED", assets: [{ id: 7 }], count: 3, "a/b": { "~": true } },
  responseHeaders: { "content-type": "application/json" },
  requestBody: { reference: "r-1" },
  requestPath: new Map([["id", "41"]]),
  messagePayload: { verification: { status: "review", reviewed: false } },
  ...over,
});

describe("the simple syntax", () => {
  it.each([
    ["$statusCode == 400", true],
    ["$statusCode == 200", false],
    ["$statusCode != 200", true],
    ["$statusCode < 500 && $statusCode >= 400", true],
    ["$statusCode > 400 || $statusCode <= 399", false],
    ["$response.body#/error_code == 'ALREADY_ARCHIVED'", true],
    ['$response.body#/error_code == "ALREADY_ARCHIVED"', true],
    ["$response.body#/assets/0/id != null", true],
    ["$response.body#/assets/1/id != null", false],
    ["$response.body#/missing == null", true],
    ["$response.body#/a~1b/~0 == true", true],
    ["$response.body#/count == 3 && ($statusCode == 200 || $statusCode == 400)", true],
    ["!($statusCode == 400)", false],
    ["$steps.create.outputs.transactionId == 'tx-1'", true],
    ["$steps.create.outputs.id == $request.path.id", false],
    ["$steps.create.outputs.id == 41", true],
    ["$steps.other.outputs.id == null", true],
    ["$inputs.who#/name == 'Aroha'", true],
    ["$request.body#/reference == 'r-1'", true],
    ["$response.header.Content-Type == 'application/json'", true],
    ["$message.payload#/verification/status != 'review'", false],
    ["$message.payload#/verification/reviewed == false", true],
    ["$response.body#/__proto__ == null", true],
    ["$response.body#/constructor == null", true],
  ])("%s is %s", (condition, expected) => {
    expect(holds(condition, values())).toEqual({ ok: expected });
  });

  it.each([
    "",
    "$statusCode ==",
    "$statusCode == 200 200",
    "(($statusCode == 200)",
    "x == 1",
    "'open == 1",
    "$a === 1",
  ])("%j cannot be read, and does not hold", (condition) => {
    expect(holds(condition, values())).toEqual({ ok: false, unreadable: true });
  });

  it("a deep pointer is not followed past its bound", () => {
    let body: unknown = "end";
    for (let i = 0; i < 40; i++) body = { a: body };
    expect(valueOf(`$response.body#${"/a".repeat(40)}`, values({ responseBody: body }))).toBeUndefined();
    expect(valueOf(`$response.body#${"/a".repeat(30)}`, values({ responseBody: body }))).toEqual(
      expect.objectContaining({}),
    );
  });

  it("never throws, whatever the condition or the answer", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.jsonValue(), (condition, body) => {
        const verdict = holds(condition, values({ responseBody: body, messagePayload: body }));
        expect(typeof verdict.ok).toBe("boolean");
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("(", ")", "!", "$statusCode", "==", "&&", "||", "1", "null"), {
          maxLength: 400,
        }),
        (parts) => {
          expect(typeof holds(parts.join(" "), values()).ok).toBe("boolean");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a condition deeply nested in parentheses is read or refused, never a stack overflow", () => {
    expect(holds(`${"(".repeat(400)}$statusCode == 400${")".repeat(400)}`, values())).toEqual({ ok: true });
    expect(holds(`${"(".repeat(5000)}1${")".repeat(5000)}`, values()).unreadable).toBe(true);
  });
});

describe("a step's criteria as findings", () => {
  it("names the workflow, the step and the condition; a criterion of another syntax is said to be unread", () => {
    const where = "workflow pep-check-pdf, step pdfAgain";
    const criteria = [
      { condition: "$statusCode == 400" },
      { condition: "$statusCode == 200" },
      { condition: "$.error_code", context: "$response.body", type: "jsonpath" },
      { condition: "^4", context: "$statusCode", type: { type: "regex" } },
      { condition: "$statusCode = 200" },
    ];
    expect(
      failedCriteria(where, criteria, values(), "response.body").map((f) => `${f.check}: ${f.message}`),
    ).toEqual([
      `success_criterion: ${where}: the criterion $statusCode == 200 does not hold`,
      `success_criterion: ${where}: the criterion $.error_code is not in the simple syntax, the only one the probe reads`,
      `success_criterion: ${where}: the criterion ^4 is not in the simple syntax, the only one the probe reads`,
      `success_criterion: ${where}: the criterion $statusCode = 200 cannot be read (the simple syntax: ==, !=, <, >, &&, ||)`,
    ]);
    expect(
      failedCriteria(where, [{ condition: "$statusCode == 400", type: "simple" }], values(), "x"),
    ).toEqual([]);
    expect(failedCriteria(where, "not a list", values(), "x")).toEqual([]);
  });
});
