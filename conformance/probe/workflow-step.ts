// One API step of an Arazzo workflow as a probe case: its operation by operationId, its parameters
// and body from the step (runtime expressions read from earlier steps), and, once answered, its
// successCriteria. A failed criterion is a finding naming the workflow, the step and the condition.
import type { Json } from "../../src/contract/json.js";
import { ownMember } from "../../src/contract/resolve-ref.js";
import { unescapeToken } from "../../src/contract/json-pointer.js";
import { list, record, show } from "../../src/arazzo/documents.js";
import type { ActiveFinding } from "./active-report.js";
import type { ProbeOperation } from "./contract-operations.js";
import type { Answer } from "./http-send.js";
import type { ProbeCase } from "./probe-case.js";
import { fileReference, readWorkflowFile } from "../../src/arazzo/workflow-file.js";
import { type BodyBytes, exampleBody, formBody } from "./request-body.js";
import { holds, type StepValues, valueOf } from "./workflow-criteria.js";

/** A value longer than this is not put in a path (no id is this long). */
const MAX_PATH_VALUE = 256;

/** A step's value: a runtime expression read, anything else as written. */
const read = (value: Json, values: StepValues): unknown =>
  typeof value === "string" && value.startsWith("$") ? valueOf(value, values) : value;

/** Set the member a JSON pointer names, when its parent exists (own members only; no prototype key). */
function replace(target: unknown, pointer: string, value: unknown): boolean {
  const tokens = pointer.split("/").slice(1).map(unescapeToken);
  const last = tokens.pop();
  if (last === undefined || !pointer.startsWith("/")) return false;
  let parent = target;
  for (const token of tokens) parent = ownMember(parent, token);
  if (parent === null || typeof parent !== "object") return false;
  Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true });
  return true;
}

/**
 * A multipart payload's form: the part whose value is `$file('path')` carries that file, read beside
 * the workflow document (as Respect reads it); undefined when no member names a file.
 */
function filePayload(
  payload: unknown,
  documentFile: string | undefined,
): BodyBytes | { problem: string } | undefined {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return undefined;
  const named = Object.entries(payload).find(([, v]) => fileReference(v) !== undefined);
  if (!named) return undefined;
  if (!documentFile) return { problem: "its $file() has no workflow document to be read beside" };
  const file = readWorkflowFile(documentFile, fileReference(named[1])!);
  return "problem" in file ? file : formBody(named[0], file);
}

/** The case a step sends, or the reason it cannot be sent; `documentFile` is the workflow document's path. */
export function stepCase(
  label: string,
  step: Json,
  op: ProbeOperation,
  values: StepValues,
  marker: string,
  documentFile?: string,
): { case: ProbeCase; requestBody: unknown } | { problem: string } {
  const params = new Map<string, string>();
  const extraHeaders: [string, string][] = [];
  for (const p of list(step?.parameters)) {
    const value = read(p?.value, values);
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
      return { problem: `its parameter ${show(p?.name)} (${show(p?.value)}) names no value` };
    if (p?.in === "path") {
      if (String(value).length > MAX_PATH_VALUE)
        return { problem: `its parameter ${show(p?.name)} is too long` };
      params.set(show(p?.name), String(value));
    } else if (p?.in === "header") extraHeaders.push([show(p?.name), String(value)]);
    else
      return {
        problem: `its parameter ${show(p?.name)} is in ${show(p?.in)}, which the probe does not send`,
      };
  }
  for (const p of op.pathParams)
    if (!params.has(p.name)) return { problem: `it gives no value for the path parameter ${p.name}` };
  const requestBody = record(step?.requestBody);
  let payload: unknown;
  if (step?.requestBody !== undefined) {
    payload = structuredClone(requestBody.payload ?? null);
    for (const r of list(requestBody.replacements)) {
      const value = read(r?.value, values);
      if (value === undefined || !replace(payload, show(r?.target), structuredClone(value)))
        return { problem: `its replacement of ${show(r?.target)} names no value` };
    }
  }
  const mediaType =
    typeof requestBody.contentType === "string" ? requestBody.contentType : op.body?.mediaType;
  const file = mediaType === "multipart/form-data" ? filePayload(payload, documentFile) : undefined;
  if (file && "problem" in file) return file;
  const body =
    file ??
    (payload === undefined || !mediaType
      ? undefined
      : exampleBody(mediaType, payload, marker, op.body?.schema));
  const sentBody =
    body && mediaType === "application/json" ? JSON.parse(body.bytes.toString("utf8")) : payload;
  return {
    case: {
      phase: "stateful",
      case: label,
      op,
      params,
      ...(body ? { body } : {}),
      ...(extraHeaders.length > 0 ? { extraHeaders } : {}),
      credentials: "valid",
      expect: { kind: "any" },
    },
    requestBody: sentBody,
  };
}

/** What a step's expressions read once it was answered. */
export function answeredValues(
  answer: Answer,
  json: unknown,
  params: Map<string, string>,
  requestBody: unknown,
  before: StepValues,
): StepValues {
  return {
    ...before,
    statusCode: answer.status,
    requestBody,
    requestPath: params,
    responseBody: json,
    responseHeaders: answer.headers,
  };
}

/** The criteria of a step (or an awaited event) that do not hold, as findings naming where. */
export function failedCriteria(
  where: string,
  criteria: Json,
  values: StepValues,
  inPart: string,
): ActiveFinding[] {
  const findings: ActiveFinding[] = [];
  for (const criterion of list(criteria)) {
    const condition = show(criterion?.condition);
    // `type` is a word (`simple`, `regex`, `jsonpath`, `xpath`) or an expression-type object.
    const type = typeof criterion?.type === "string" ? criterion.type : record(criterion?.type).type;
    if (type !== undefined && type !== "simple") {
      findings.push({
        in: inPart,
        check: "success_criterion",
        pointer: "",
        message: `${where}: the criterion ${condition} is not in the simple syntax, the only one the probe reads`,
      });
      continue;
    }
    const verdict = holds(condition, values);
    if (!verdict.ok)
      findings.push({
        in: inPart,
        check: "success_criterion",
        pointer: "",
        message: verdict.unreadable
          ? `${where}: the criterion ${condition} cannot be read (the simple syntax: ==, !=, <, >, &&, ||)`
          : `${where}: the criterion ${condition} does not hold`,
      });
  }
  return findings;
}

/** The outputs of a step, evaluated over what it sent and got. */
export function outputsOf(step: Json, values: StepValues): Map<string, unknown> {
  const outputs = new Map<string, unknown>();
  for (const [name, expression] of Object.entries(record(step?.outputs)))
    outputs.set(name, read(expression, values));
  return outputs;
}
