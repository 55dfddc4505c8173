// Coverage of the contract by the workflows: every operation is a step of one, every event is
// awaited by one, except the events the document sends outside any journey a caller starts.
import type { Json } from "../lib/json-ref.js";
import { type ArazzoFile, receives, record, steps } from "../../src/arazzo/documents.js";
import { openApiOperationIds } from "./resolve.js";

/**
 * The events no workflow awaits, each with the interface document's words that say why: no
 * operation of the contract starts what they report on.
 */
export const NOT_AWAITED: Readonly<Record<string, string>> = {
  "#/channels/biometricWebhook/messages/test": "Sent by the Test button only.",
  "#/channels/workflowCase/messages/caseCompleted":
    "A case reaching completed triggers the case.completed webhook (only for cases created with activity.external_id).",
};

/** Every message of a bundled AsyncAPI document, as a pointer `#/channels/<channel>/messages/<message>`. */
export function asyncApiMessages(asyncapi: Json): string[] {
  return Object.entries<Json>(record(asyncapi?.channels)).flatMap(([channel, c]) =>
    Object.keys(record(c?.messages)).map((m) => `#/channels/${channel}/messages/${m}`),
  );
}

/** The operations no step calls and the events no step awaits (beyond NOT_AWAITED). */
export function uncovered(
  files: ArazzoFile[],
  openapi: Json,
  asyncapi: Json,
): { operations: string[]; events: string[] } {
  const called = new Set(files.flatMap((f) => steps(f.document).map((s) => s.step?.operationId)));
  const awaited = new Set(files.flatMap((f) => receives(f.document).map((r) => r.entry?.message)));
  return {
    operations: [...openApiOperationIds(openapi)].filter((id) => !called.has(id)),
    events: asyncApiMessages(asyncapi).filter((m) => !awaited.has(m) && !Object.hasOwn(NOT_AWAITED, m)),
  };
}
