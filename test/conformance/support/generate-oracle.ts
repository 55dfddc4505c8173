// The oracle of the generators' tests: a body is accepted when the suite's own request check
// (`request_body_schema` findings of the conformance checker) and the servers' body check (the
// mock's and the sandbox's pipeline, src/server/check-request.ts) both accept it. Beside them, the
// suite's compiled validator of the body's schema, whose errors say which keyword a value breaks.
import type { ErrorObject } from "ajv";
import { AjvCompiler } from "../../../src/contract/ajv-compiler.js";
import type { Json } from "../../../src/contract/json.js";
import { checkBody } from "../../../src/server/check-request.js";
import { loadOperations, type Operation } from "../../../src/server/operations.js";
import { createConformanceChecker } from "../../../conformance/index.js";
import { ContractModel } from "../../../conformance/checks/contract-model.js";
import type { BodyBytes } from "../../../conformance/probe/request-body.js";
import { exampleParams, type ProbeOperation } from "../../../conformance/probe/contract-operations.js";

/** What each judge says of one body: the suite's findings and the server's refusal, if any. */
export interface Verdict {
  suite: string[];
  server: string | undefined;
  accepted: boolean;
  refused: boolean;
}

/** The judges of one contract. */
export function oracleFor(document: Json) {
  const checker = createConformanceChecker({ spec: document });
  const compiler = new AjvCompiler(document);
  const servers = new Map<string, Operation>(loadOperations(document).map((o) => [o.operationId, o]));
  const model = new ContractModel(document, compiler);
  const pointers = new Map(
    model.operations.map((o) => [o.operationId, o.requestBody?.media[0]?.schemaPointer]),
  );

  /** Both judges' verdicts on a body sent to an operation. */
  function judge(op: ProbeOperation, body: BodyBytes): Verdict {
    const params = exampleParams(op);
    const path = op.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(params.get(name) ?? "1"),
    );
    const result = checker.checkExchange({
      index: 0,
      request: {
        method: op.method,
        path,
        query: {},
        headers: { "content-type": body.contentType },
        body: { kind: "bytes", bytes: body.bytes },
      },
    });
    const suite = result.violations
      .filter((v) => v.check === "request_body_schema")
      .map((v) => `${v.pointer} ${v.message}`);
    const server = servers.get(op.operationId);
    if (!server) throw new Error(`no server operation ${op.operationId}`);
    const refusal = checkBody(
      server,
      { headers: { "content-type": body.contentType }, body: body.bytes },
      compiler,
    ).rejection;
    const said = refusal ? `${refusal.status} ${JSON.stringify(refusal.body)}` : undefined;
    return {
      suite,
      server: said,
      accepted: suite.length === 0 && !refusal,
      refused: suite.length > 0 && refusal !== undefined,
    };
  }

  /** The suite's validator errors of a JSON value against an operation's body schema. */
  function errors(op: ProbeOperation, value: unknown): ErrorObject[] {
    const pointer = pointers.get(op.operationId);
    if (!pointer) throw new Error(`no body schema of ${op.operationId}`);
    const validate = compiler.validator(pointer);
    return validate(value) ? [] : [...(validate.errors ?? [])];
  }

  return { judge, errors };
}

/** The validator keywords a broken value's kind stands for. */
export const KIND_KEYWORDS: Record<string, string[]> = {
  maxLength: ["maxLength"],
  minLength: ["minLength"],
  pattern: ["pattern"],
  date: ["pattern", "format"],
  format: ["format"],
  enum: ["enum", "const"],
  type: ["type"],
  required: ["required"],
  country: ["required"],
  undescribed: ["unevaluatedProperties", "additionalProperties"],
  minimum: ["minimum", "exclusiveMinimum"],
  maximum: ["maximum", "exclusiveMaximum"],
  multipleOf: ["multipleOf"],
  minItems: ["minItems"],
  maxItems: ["maxItems"],
  uniqueItems: ["uniqueItems"],
  minProperties: ["minProperties"],
  maxProperties: ["maxProperties"],
};

/** Where a kind's error sits: at the member itself, or (a member missing or added) at its object. */
export function errorPath(kind: string, pointer: string): string {
  return ["required", "country", "undescribed", "maxProperties"].includes(kind)
    ? pointer.slice(0, pointer.lastIndexOf("/"))
    : pointer;
}
