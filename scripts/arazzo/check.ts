// Checks an Arazzo document against the contract beyond what `redocly lint` reads: the sources are
// the bundles, every step calls an operation of the contract with its parameters and one of its own
// request examples, every expression names a member or an output that exists, and every awaited
// event is a message of the AsyncAPI contract, correlated by an id.
import { isDeepStrictEqual } from "node:util";
import { HTTP_METHODS } from "../lib/http-methods.js";
import { type Json, resolveRef } from "../lib/json-ref.js";
import {
  list,
  record,
  show,
  ASYNCAPI_URL,
  type ArazzoFile,
  OPENAPI_URL,
  receives,
  type StepAt,
  stepName,
  steps,
} from "../../src/arazzo/documents.js";
import { type ExpressionScope, expectedStatuses, textProblems } from "./expressions.js";
import { at, unresolvedReferences } from "./resolve.js";
import { hasMember } from "./schema-path.js";
import { fileReference } from "../../src/arazzo/workflow-file.js";

/** The two bundled contracts a document is checked against. */
export interface Contract {
  openapi: Json;
  asyncapi: Json;
}

/** The operation of a bundled OpenAPI document with an operationId, and its path item. */
function findOperation(openapi: Json, id: string): { op: Json; item: Json } | undefined {
  for (const item of Object.values<Json>(record(openapi?.paths)))
    for (const method of HTTP_METHODS)
      if (item?.[method]?.operationId === id) return { op: item[method], item };
  return undefined;
}

const RECEIVE_KEYS = new Set([
  "stepId",
  "description",
  "operationId",
  "message",
  "correlationId",
  "location",
  "successCriteria",
]);
const RECEIVE_REQUIRED = ["stepId", "operationId", "message", "correlationId", "location"];

/** The source descriptions: the OpenAPI bundle, and the AsyncAPI bundle when a step awaits an event. */
function sourceProblems(file: ArazzoFile): string[] {
  const problems: string[] = [];
  const sources = list(file.document?.sourceDescriptions);
  if (sources.length !== 1 || sources[0]?.url !== OPENAPI_URL || sources[0]?.type !== "openapi")
    problems.push(`sourceDescriptions must be the one OpenAPI bundle, ${OPENAPI_URL}`);
  const events: Json = file.document?.["x-event-sources"];
  if (
    events !== undefined &&
    (list(events).length !== 1 || events[0]?.url !== ASYNCAPI_URL || events[0]?.type !== "asyncapi")
  )
    problems.push(`x-event-sources must be the one AsyncAPI bundle, ${ASYNCAPI_URL}`);
  if (events === undefined && receives(file.document).length > 0)
    problems.push("a step awaits an event, so x-event-sources must name the AsyncAPI bundle");
  return problems;
}

/** The parameters a step gives: each one the operation has, and every required one given. */
function parameterProblems(openapi: Json, found: { op: Json; item: Json }, step: Json): string[] {
  const declared = [...(found.item.parameters ?? []), ...(found.op.parameters ?? [])].map((p: Json) =>
    resolveRef(openapi, p),
  );
  const given = list(step.parameters);
  const problems = given
    .filter((g) => !declared.some((d) => d.name === g?.name && d.in === g?.in))
    .map((g) => `parameter \`${show(g?.name)}\` in ${show(g?.in)} is not a parameter of the operation`);
  for (const d of declared)
    if (d.required && !given.some((g) => g?.name === d.name && g?.in === d.in))
      problems.push(`required parameter \`${d.name}\` in ${d.in} is not given`);
  return problems;
}

/**
 * A payload with each `$file('…')` member (a file beside the workflow, as Respect reads it) taken as
 * the example's own text placeholder of that part: the file stands for the example's contents.
 */
function withFilesAs(example: Json, payload: Json): Json {
  if (
    !payload ||
    typeof payload !== "object" ||
    Array.isArray(payload) ||
    !example ||
    typeof example !== "object"
  )
    return payload;
  const out: Record<string, Json> = { ...payload };
  for (const [k, v] of Object.entries<Json>(payload))
    if (fileReference(v) !== undefined && typeof example[k] === "string") out[k] = example[k];
  return out;
}

/** The request body: the operation's media type, and a payload equal to one of its examples. */
function bodyProblems(openapi: Json, op: Json, step: Json): { problems: string[]; schema?: Json } {
  const body = op.requestBody ? resolveRef(openapi, op.requestBody) : undefined;
  const given = step.requestBody;
  if (!given) return { problems: body?.required ? ["the operation requires a request body"] : [] };
  const content = record(body?.content);
  const type = given.contentType;
  const media = typeof type === "string" && Object.hasOwn(content, type) ? content[type] : undefined;
  if (!media) return { problems: [`the operation takes no ${show(given.contentType)} body`] };
  const examples = Object.values<Json>(record(media.examples)).map((e) => resolveRef(openapi, e).value);
  const problems = examples.some((v) => isDeepStrictEqual(v, withFilesAs(v, given.payload)))
    ? []
    : ["the payload is none of the operation's request examples (copy one, then use replacements)"];
  for (const r of list(given.replacements))
    if (typeof r?.target !== "string" || !r.target.startsWith("/") || !hasMember(given.payload, r.target))
      problems.push(`replacement target \`${show(r?.target)}\` is not in the payload`);
  const json = show(given.contentType).endsWith("json") ? media.schema : undefined;
  return { problems, schema: json };
}

/** The JSON schema of the answer a step expects (its `$statusCode == N`), when it is JSON. */
function responseSchema(openapi: Json, op: Json, status: string | undefined): Json {
  const response = status ? op.responses?.[status] : undefined;
  return response ? resolveRef(openapi, response).content?.["application/json"]?.schema : undefined;
}

/** Every text of a step that may hold expressions. */
function stepTexts(step: Json): unknown[] {
  const criteria = (value: Json) => list(value).map((c: Json) => c?.condition);
  return [
    ...criteria(step.successCriteria),
    ...Object.values(record(step.outputs)),
    ...list(step.parameters).map((p: Json) => p?.value),
    ...list(step.requestBody?.replacements).map((r: Json) => r?.value),
    ...[...list(step.onSuccess), ...list(step.onFailure)].flatMap((a: Json) => criteria(a?.criteria)),
  ];
}

/** Problems of one awaited event beyond its resolution: its fields, correlation and criteria. */
function receiveProblems(entry: Json, scope: ExpressionScope): string[] {
  const problems = Object.keys(record(entry))
    .filter((k) => !RECEIVE_KEYS.has(k))
    .map((k) => `unknown field \`${k}\``);
  for (const k of RECEIVE_REQUIRED) if (entry?.[k] === undefined) problems.push(`\`${k}\` is missing`);
  if (!/^\$steps\.[\w-]+\.outputs\.[\w-]+$/.test(show(entry?.correlationId)))
    problems.push("correlationId must be an output of a step: the id of the record the event is about");
  if (!/^\$message\.payload#\/\S+$/.test(show(entry?.location)))
    problems.push("location must point into the payload ($message.payload#/…)");
  const texts = [
    entry?.correlationId,
    entry?.location,
    ...list(entry?.successCriteria).map((c: Json) => c?.condition),
  ];
  return [...problems, ...texts.flatMap((t) => textProblems(t, scope))];
}

/** Problems of one API step (after its references resolved). */
function stepProblems(contract: Contract, s: StepAt, outputs: Map<string, Set<string>>): string[] {
  const found = findOperation(contract.openapi, show(s.step.operationId));
  if (!found) return [];
  const statuses = expectedStatuses(s.step);
  const problems =
    statuses.length === 1 ? [] : ["the success criteria must state one status ($statusCode == N)"];
  for (const status of statuses)
    if (!found.op.responses?.[status]) problems.push(`the operation documents no ${status} response`);
  problems.push(...parameterProblems(contract.openapi, found, s.step));
  const body = bodyProblems(contract.openapi, found.op, s.step);
  problems.push(...body.problems);
  const scope: ExpressionScope = {
    document: contract.openapi,
    outputs,
    response: responseSchema(contract.openapi, found.op, statuses[0]),
    request: body.schema,
  };
  for (const text of stepTexts(s.step)) problems.push(...textProblems(text, scope));
  return problems;
}

/** Every problem of one document, each naming the workflow and the step. */
export function checkArazzo(file: ArazzoFile, contract: Contract): string[] {
  const problems = sourceProblems(file).map((p) => `${file.path}: ${p}`);
  for (const u of unresolvedReferences(file, contract.openapi, contract.asyncapi))
    problems.push(`${file.path}: workflow ${u.workflowId}, step ${u.stepId}: ${u.why}`);
  const outputsOf = new Map<string, Map<string, Set<string>>>();
  const seen = new Map<string, Set<string>>();
  for (const s of steps(file.document)) {
    const where = `${file.path}: ${stepName(s)}`;
    const outputs = outputsOf.get(s.workflowId) ?? new Map<string, Set<string>>();
    outputsOf.set(s.workflowId, outputs);
    const ids = seen.get(s.workflowId) ?? new Set<string>();
    seen.set(s.workflowId, ids);
    if (typeof s.step?.operationId !== "string")
      problems.push(`${where}: a step names its operation by operationId`);
    else problems.push(...stepProblems(contract, s, outputs).map((p) => `${where}: ${p}`));
    const stepId = show(s.step?.stepId);
    outputs.set(stepId, new Set(Object.keys(record(s.step?.outputs))));
    for (const [i, entry] of list(s.step?.["x-receive"]).entries()) {
      const message = at(contract.asyncapi, entry?.message);
      const scope: ExpressionScope = {
        document: contract.openapi,
        outputs,
        asyncapi: contract.asyncapi,
        message: message?.payload,
      };
      const name = `${where}, x-receive ${show(entry?.stepId ?? i)}`;
      problems.push(...receiveProblems(entry, scope).map((p) => `${name}: ${p}`));
      if (ids.has(show(entry?.stepId))) problems.push(`${name}: stepId is not unique in the workflow`);
      ids.add(show(entry?.stepId));
    }
    if (ids.has(stepId)) problems.push(`${where}: stepId is not unique in the workflow`);
    ids.add(stepId);
  }
  return problems;
}
