// Everything a `webhooks` coverage report counts of an AsyncAPI contract.
import { AsyncApiModel } from "../checks/asyncapi-model.js";
import type { Json } from "../checks/contract-model.js";
import { searchWebhookGaps } from "./gaps.js";
import { indexedUniverse } from "./coverage-index.js";
import { webhookBuilt } from "./built.js";
import { SchemaWalker } from "./schema-walk.js";
import type { CoverageKind } from "./seen.js";
import type { Universe } from "./universe.js";

/** What a `webhooks` coverage report counts of an AsyncAPI contract: from the build-time index when it is of this contract. */
export function webhookUniverse(document: Json): Universe {
  return indexedUniverse(document, "asyncapi") ?? workOutWebhookUniverse(document);
}

/** What a `webhooks` coverage report counts of an AsyncAPI contract, worked out from the contract. */
export function workOutWebhookUniverse(document: Json): Universe {
  // The run's hooks built most of it already, when they checked this very document in this thread.
  const built = webhookBuilt.of(document);
  const model = built?.model ?? new AsyncApiModel(document);
  const walker = built?.walker ?? new SchemaWalker(document);
  const payloads = model.messages.flatMap((m) => (m.payloadPointer ? [walker.at(m.payloadPointer)] : []));
  const reached = walker.reachable(payloads);
  return new Map<CoverageKind, Set<string>>([
    ["events", new Set(model.messages.map((m) => m.location))],
    ["members", reached.members],
    ["branches", reached.branches],
    ["enums", reached.enums],
    ["gaps", searchWebhookGaps(document)],
  ]);
}
