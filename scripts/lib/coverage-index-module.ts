// generated/coverage-index.js: what a coverage report counts of each bundled contract (its universe)
// and where its `x-gap` locations are, worked out here once so that a run does not (read by
// conformance/coverage/coverage-index.ts, which checks the digest before it trusts an entry).
import type { Json } from "../../src/contract/json.js";
import { contractDigest } from "../../src/contract/precompiled.js";
import type { CoverageIndexEntry } from "../../conformance/coverage/coverage-index.js";
import { workOutHttpUniverse } from "../../conformance/coverage/universe.js";
import { workOutWebhookUniverse } from "../../conformance/coverage/webhook-universe.js";
import { commentHeader } from "./generated-header.js";

/** One contract's entry: its digest and its universe (its gaps among them), each list sorted. */
function entryOf(document: Json, universe: Map<string, Set<string>>): CoverageIndexEntry {
  return {
    sha256: contractDigest(document),
    universe: Object.fromEntries([...universe].map(([kind, locations]) => [kind, [...locations].sort()])),
  };
}

/** The module text: one entry for the OpenAPI contract, one for the AsyncAPI contract. */
export function buildCoverageIndexModule(openapi: Json, asyncapi: Json, source: string): string {
  const http = entryOf(openapi, workOutHttpUniverse(openapi));
  const webhooks = entryOf(asyncapi, workOutWebhookUniverse(asyncapi));
  return `${commentHeader("//", source, "npm run build:conformance")}
export const openapi = ${JSON.stringify(http, null, 1)};
export const asyncapi = ${JSON.stringify(webhooks, null, 1)};
`;
}
