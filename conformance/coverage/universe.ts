// Everything a coverage report counts of a contract: the locations each kind could reach, worked out
// from the contract alone (the main thread of a run has no checker of its own).
import { escapeToken } from "../../src/json-pointer.js";
import { AsyncApiModel } from "../checks/asyncapi-model.js";
import { ContractModel, type Json } from "../checks/contract-model.js";
import { contractDigest } from "../checks/precompiled.js";
import { SchemaWalker } from "./schema-walk.js";
import type { CoverageKind } from "./seen.js";

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

/** The deepest the contract is searched for `x-gap`. */
const MAX_GAP_DEPTH = 64;

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

/** Every object under `roots` that carries `x-gap`: where the contract had to choose. */
function gapLocations(document: Json, roots: string[]): Set<string> {
  const out = new Set<string>();
  const visit = (node: Json, pointer: string, depth: number) => {
    if (node === null || typeof node !== "object" || depth > MAX_GAP_DEPTH) return;
    if (!Array.isArray(node) && Object.hasOwn(node, "x-gap")) out.add(pointer);
    for (const key of Object.keys(node)) {
      if (key === "x-gap") continue;
      visit(node[key], `${pointer}/${escapeToken(key)}`, depth + 1);
    }
  };
  for (const root of roots)
    if (document && typeof document === "object" && Object.hasOwn(document, root))
      visit(document[root], `/${root}`, 0);
  return out;
}

const noValidator = () => {
  throw new Error("the universe of a contract validates nothing");
};

/** What a `check` coverage report counts of an OpenAPI contract. */
export function httpUniverse(document: Json): Universe {
  const model = new ContractModel(document, { validator: noValidator });
  const walker = new SchemaWalker(document, noValidator);
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
  kinds.set("gaps", gapLocations(document, ["paths", "components"]));
  return kinds;
}

/** What a `webhooks` coverage report counts of an AsyncAPI contract. */
export function webhookUniverse(document: Json): Universe {
  const model = new AsyncApiModel(document);
  const walker = new SchemaWalker(document, noValidator);
  const payloads = model.messages.flatMap((m) => (m.payloadPointer ? [walker.at(m.payloadPointer)] : []));
  const reached = walker.reachable(payloads);
  return new Map<CoverageKind, Set<string>>([
    ["events", new Set(model.messages.map((m) => m.location))],
    ["members", reached.members],
    ["branches", reached.branches],
    ["enums", reached.enums],
    ["gaps", gapLocations(document, ["channels", "operations", "components"])],
  ]);
}
