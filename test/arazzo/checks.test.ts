// The checks of the workflows can fail: each broken workflow below is one the checks must reject,
// with a message naming the workflow, the step and what is wrong.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { checkArazzo } from "../../scripts/arazzo/check.js";
import { uncovered } from "../../scripts/arazzo/coverage.js";
import type { ArazzoFile } from "../../src/arazzo/documents.js";
import { loadArazzo } from "../../scripts/arazzo/load-yaml.js";
import { unresolvedReferences } from "../../scripts/arazzo/resolve.js";
import { lintContract } from "../../scripts/contract/openapi-bundle.js";
import { workflowChanges } from "../../scripts/evolution/classify-workflows.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { type Json, loadAsyncApi, loadOpenApi } from "../support/contract.js";

const files = loadArazzo(ROOT);
const contract = { openapi: loadOpenApi(), asyncapi: loadAsyncApi() };
const original = (name: string) => files.find((f) => f.path === `arazzo/${name}.arazzo.yaml`)!;

/** A copy of a document with one change made by `edit`. */
function broken(name: string, edit: (doc: Json) => void): ArazzoFile {
  const file = structuredClone(original(name));
  edit(file.document);
  return file;
}

const step = (doc: Json, workflow: number, index: number): Json => doc.workflows[workflow].steps[index];

describe("checkArazzo rejects", () => {
  const cases: [string, string, (doc: Json) => void, string][] = [
    [
      "an operation the contract does not have",
      "pep-checks",
      (d) => (step(d, 0, 1).operationId = "getPepReport"),
      "step pdf: the OpenAPI contract has no operation `getPepReport`",
    ],
    [
      "an event the contract does not have",
      "edd-cases",
      (d) => (step(d, 0, 4)["x-receive"][0].message = "#/channels/eddCaseCompleted/messages/caseClosed"),
      "no message `#/channels/eddCaseCompleted/messages/caseClosed`",
    ],
    [
      "an event of another operation's channel",
      "edd-cases",
      (d) => (step(d, 0, 4)["x-receive"][0].operationId = "sendBiometricEvent"),
      "`sendBiometricEvent` does not send on channel `eddCaseCompleted`",
    ],
    [
      "a payload that is none of the contract's examples",
      "pep-checks",
      (d) => (step(d, 0, 0).requestBody.payload.lastname = "Smith"),
      "step create: the payload is none of the operation's request examples",
    ],
    [
      "a replacement outside the payload",
      "kyb-verifications",
      (d) => (step(d, 0, 1).requestBody.replacements[0].target = "/kyb_verification/code"),
      "replacement target `/kyb_verification/code` is not in the payload",
    ],
    [
      "an output no step declares",
      "pep-checks",
      (d) => (step(d, 0, 1).parameters[0].value = "$steps.create.outputs.pepId"),
      "step `create` has no output `pepId`",
    ],
    [
      "an output of a later step",
      "kyb-verifications",
      (d) => (step(d, 0, 1).requestBody.replacements[0].value = "$steps.pdf.outputs.id"),
      "no step `pdf` before this one",
    ],
    [
      "a response member the schema does not have",
      "pep-checks",
      (d) => (step(d, 0, 0).outputs.id = "$response.body#/pep_id"),
      "the schema has no member `/pep_id`",
    ],
    [
      "a value the member never takes",
      "pep-checks",
      (d) => (step(d, 0, 2).successCriteria[1].condition = "$response.body#/error_code == 'ARCHIVED'"),
      "is never 'ARCHIVED'",
    ],
    [
      "a body member of an answer that is not JSON",
      "pep-checks",
      (d) => step(d, 0, 1).successCriteria.push({ condition: "$response.body#/id != null" }),
      "the step has no expected JSON response",
    ],
    [
      "a status the operation does not document",
      "pep-checks",
      (d) => (step(d, 0, 2).successCriteria[0].condition = "$statusCode == 410"),
      "the operation documents no 410 response",
    ],
    [
      "a step without a status",
      "pep-checks",
      (d) => step(d, 0, 1).successCriteria.shift(),
      "the success criteria must state one status",
    ],
    [
      "a missing path parameter",
      "pep-checks",
      (d) => delete step(d, 0, 1).parameters,
      "required parameter `id` in path is not given",
    ],
    [
      "a parameter the operation does not have",
      "pep-checks",
      (d) => (step(d, 0, 1).parameters[0].name = "pep_id"),
      "parameter `pep_id` in path is not a parameter of the operation",
    ],
    [
      "a missing request body",
      "fraud-analytics",
      (d) => delete step(d, 0, 0).requestBody,
      "the operation requires a request body",
    ],
    [
      "an event not correlated by an id",
      "edd-cases",
      (d) => (step(d, 0, 4)["x-receive"][0].correlationId = "case"),
      "correlationId must be an output of a step",
    ],
    [
      "an event member the payload does not have",
      "edd-cases",
      (d) => (step(d, 0, 4)["x-receive"][0].location = "$message.payload#/case_id"),
      "the schema has no member `/case_id`",
    ],
    [
      "an unknown field of x-receive",
      "edd-cases",
      (d) => (step(d, 0, 4)["x-receive"][0].timeoutMs = 5),
      "unknown field `timeoutMs`",
    ],
    [
      "a stepId used twice",
      "edd-cases",
      (d) => (step(d, 0, 4)["x-receive"][0].stepId = "read"),
      "stepId is not unique in the workflow",
    ],
    [
      "a source that is not the bundle",
      "pep-checks",
      (d) => (d.sourceDescriptions[0].url = "../openapi/openapi.yaml"),
      "sourceDescriptions must be the one OpenAPI bundle",
    ],
    [
      "an awaited event without the AsyncAPI source",
      "edd-cases",
      (d) => delete d["x-event-sources"],
      "x-event-sources must name the AsyncAPI bundle",
    ],
  ];
  it.each(cases)("%s", (_name, name, edit, message) => {
    expect(checkArazzo(original(name), contract)).toEqual([]);
    const problems = checkArazzo(broken(name, edit), contract);
    expect(problems.join("\n")).toContain(message);
  });
});

describe("hostile documents", () => {
  // The breaking-change gate reads the released documents from git: whatever they hold, the checks
  // answer with problems, never with an exception.
  const pointers = (node: Json, at: string[] = []): string[][] =>
    node !== null && typeof node === "object"
      ? [at, ...Object.keys(node).flatMap((k) => pointers(node[k], [...at, k]))]
      : [at];
  const all = files.map((f) => ({ file: f, paths: pointers(f.document).filter((p) => p.length > 0) }));

  it("any document: checkArazzo and unresolvedReferences return lists", () => {
    fc.assert(
      fc.property(fc.anything(), (document) => {
        const file = { path: "arazzo/x.arazzo.yaml", document };
        expect(Array.isArray(checkArazzo(file, contract))).toBe(true);
        expect(Array.isArray(unresolvedReferences(file, contract.openapi, contract.asyncapi))).toBe(true);
      }),
    );
  });

  it("a real document with any one node replaced: the checks return lists", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.anything(), (which, where, value) => {
        const { file, paths } = all[which % all.length]!;
        const path = paths[where % paths.length]!;
        const copy = structuredClone(file);
        const parent = path.slice(0, -1).reduce((n: Json, k) => n[k], copy.document);
        parent[path.at(-1)!] = value;
        expect(Array.isArray(checkArazzo(copy, contract))).toBe(true);
        expect(Array.isArray(workflowChanges([copy], contract))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("coverage", () => {
  it("names an operation no workflow calls and an event no workflow awaits", () => {
    const without = files.filter((f) => !f.path.includes("fraud-analytics") && !f.path.includes("edd-cases"));
    const gaps = uncovered(without, contract.openapi, contract.asyncapi);
    expect(gaps.operations).toContain("createFraudAnalytic");
    expect(gaps.events).toEqual(["#/channels/eddCaseCompleted/messages/caseCompleted"]);
  });
});

describe("redocly lint", () => {
  const dir = mkdtempSync(join(tmpdir(), "idv-arazzo-lint-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("rejects a step that names no operation and a field Arazzo does not have", () => {
    const doc = structuredClone(original("pep-checks").document);
    delete step(doc, 0, 1).operationId;
    step(doc, 0, 0).awaits = "completed";
    const path = join(dir, "broken.arazzo.yaml");
    writeFileSync(path, stringify(doc));
    const problems = lintContract(path).problems.map((p) => `${p.ruleId} ${p.where.split("#")[1]}`);
    expect(problems.sort()).toEqual(["struct /workflows/0/steps/0/awaits", "struct /workflows/0/steps/1"]);
  });
});
