// Everything a coverage report counts of a contract: the locations each kind could reach, read from
// the build-time index when it is of this contract (coverage-index.ts), else worked out from the
// contract alone (the main thread of a run with workers has no checker of its own; a run without
// reuses what its hooks built, see built.ts). The AsyncAPI side is webhook-universe.ts: its model
// loads ajv, which `check` does not need.
import { ContractModel, type Json } from "../checks/contract-model.js";
import { contractDigest } from "../../src/contract/precompiled.js";
import { SchemaWalker } from "./schema-walk.js";
import type { CoverageKind } from "./seen.js";
import { searchHttpGaps } from "./gaps.js";
import { indexedUniverse } from "./coverage-index.js";
import { httpBuilt } from "./built.js";

/** Which contract a report is of: enough to refuse merging reports of different contracts. */
export interface ContractIdentity {
  format: "openapi" | "asyncapi";
  title: string;
  version: string;
  /** sha256 of the bundled contract's JSON. */
  digest: string;
}

/** The locations of each kind a report counts. */
export type Universe = Map<CoverageKind, Set<string>>;

/** The identity of a bundled contract. */
export function identityOf(document: Json, format: ContractIdentity["format"]): ContractIdentity {
  const info = document?.info ?? {};
  return {
    format,
    title: typeof info.title === "string" ? info.title : "",
    version: typeof info.version === "string" ? info.version : "",
    digest: `sha256:${contractDigest(document)}`,
  };
}

/** What a `check` coverage report counts of an OpenAPI contract: from the build-time index when it is of this contract. */
export function httpUniverse(document: Json): Universe {
  return indexedUniverse(document, "openapi") ?? workOutHttpUniverse(document);
}

/** What a `check` coverage report counts of an OpenAPI contract, worked out from the contract. */
export function workOutHttpUniverse(document: Json): Universe {
  // The run's hooks built most of it already, when they checked this very document in this thread.
  const built = httpBuilt.of(document);
  const model =
    built?.model ??
    new ContractModel(document, {
      validator: () => {
        throw new Error("the universe of a contract validates nothing");
      },
    });
  const walker = built?.walker ?? new SchemaWalker(document);
  const request = [];
  const response = [];
  const kinds: Universe = new Map(
    ["operations", "statuses", "parameters", "security", "response-members"].map((k) => [
      k as CoverageKind,
      new Set<string>(),
    ]),
  );
  for (const op of model.operations) {
    kinds.get("operations")!.add(op.pointer);
    // The schemes some operation asks for (a scheme only a webhook receiver uses is not the API's).
    for (const scheme of op.securitySchemes.flat()) kinds.get("security")!.add(scheme);
    for (const p of op.parameters) {
      kinds.get("parameters")!.add(p.pointer);
      if (p.schemaPointer) request.push(walker.at(p.schemaPointer));
    }
    for (const m of op.requestBody?.media ?? []) request.push(walker.at(m.schemaPointer));
    for (const r of op.responses.values()) {
      kinds.get("statuses")!.add(r.location);
      for (const h of r.headers) {
        kinds.get("response-members")!.add(h.location);
        if (h.schemaPointer) response.push(walker.at(h.schemaPointer));
      }
      for (const m of r.media) response.push(walker.at(m.schemaPointer));
    }
  }
  const asked = walker.reachable(request);
  const answered = walker.reachable(response);
  kinds.set("request-members", asked.members);
  for (const m of answered.members) kinds.get("response-members")!.add(m);
  kinds.set("branches", new Set([...asked.branches, ...answered.branches]));
  kinds.set("enums", new Set([...asked.enums, ...answered.enums]));
  kinds.set("gaps", searchHttpGaps(document));
  return kinds;
}
