// Whether the workflows still resolve against a contract: every operation a step calls and every
// event a step awaits must exist. The tests check the committed workflows against the committed
// bundles; the breaking-change gate checks the released workflows against the contract now.
import { type Json, resolveRef } from "../lib/json-ref.js";
import { HTTP_METHODS } from "../lib/http-methods.js";
import { type ArazzoFile, receives, record, show, steps } from "../../src/arazzo/documents.js";

/** A reference of a workflow that the contract does not answer. */
export interface Unresolved {
  path: string;
  workflowId: string;
  /** The API step, or the `x-receive` entry, that makes the reference. */
  stepId: string;
  kind: "operation" | "event";
  /** The operationId, or the event as `operationId message-pointer`. */
  ref: string;
  /** What is missing, in words. */
  why: string;
}

/** The operationIds of a bundled OpenAPI document's paths (webhooks are not callable). */
export function openApiOperationIds(openapi: Json): Set<string> {
  const ids = new Set<string>();
  for (const item of Object.values<Json>(record(openapi?.paths)))
    for (const method of HTTP_METHODS) {
      const id = item?.[method]?.operationId;
      if (typeof id === "string") ids.add(id);
    }
  return ids;
}

/** The target of a local JSON pointer ("#/channels/…") in a document, or undefined. */
export function at(document: Json, pointer: unknown): Json {
  if (typeof pointer !== "string" || !pointer.startsWith("#/")) return undefined;
  try {
    return resolveRef(document, { $ref: pointer });
  } catch {
    return undefined;
  }
}

/** Why an awaited event does not resolve in a bundled AsyncAPI document, or undefined when it does. */
export function eventProblem(asyncapi: Json, entry: Json): string | undefined {
  const operationId = entry?.operationId;
  const operation =
    typeof operationId === "string" && Object.hasOwn(record(asyncapi?.operations), operationId)
      ? asyncapi.operations[operationId]
      : undefined;
  if (!operation) return `the AsyncAPI contract has no operation \`${show(operationId)}\``;
  const message = show(entry?.message);
  const match = /^#\/channels\/([^/]+)\/messages\/([^/]+)$/.exec(message);
  if (!match || at(asyncapi, message) === undefined)
    return `the AsyncAPI contract has no message \`${message}\``;
  const channel = operation.channel?.$ref;
  if (channel !== `#/channels/${match[1]}`)
    return `\`${show(operationId)}\` does not send on channel \`${match[1]}\``;
  return undefined;
}

/** Every operation and event a document's workflows name that the contract does not have. */
export function unresolvedReferences(file: ArazzoFile, openapi: Json, asyncapi: Json): Unresolved[] {
  const ids = openApiOperationIds(openapi);
  const workflowIds = new Set(steps(file.document).map((s) => s.workflowId));
  const out: Unresolved[] = [];
  for (const s of steps(file.document)) {
    const stepId = show(s.step?.stepId);
    const base = { path: file.path, workflowId: s.workflowId, stepId, kind: "operation" as const };
    if (typeof s.step?.workflowId === "string") {
      if (!workflowIds.has(s.step.workflowId))
        out.push({ ...base, ref: s.step.workflowId, why: `no workflow \`${s.step.workflowId}\`` });
      continue;
    }
    const id = s.step?.operationId;
    if (typeof id !== "string" || !ids.has(id))
      out.push({ ...base, ref: show(id), why: `the OpenAPI contract has no operation \`${show(id)}\`` });
  }
  for (const r of receives(file.document)) {
    const why = eventProblem(asyncapi, r.entry);
    if (why)
      out.push({
        path: file.path,
        workflowId: r.workflowId,
        stepId: show(r.entry?.stepId),
        kind: "event",
        ref: `${show(r.entry?.operationId)} ${show(r.entry?.message)}`,
        why,
      });
  }
  return out;
}
