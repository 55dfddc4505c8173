// What the coverage hooks of a run built of a contract (its model, its schema nodes), kept by document:
// the report's universe, made once the run ends, reuses them instead of building them a second time.
import type { ContractModel } from "../checks/contract-model.js";
import type { AsyncApiModel } from "../checks/asyncapi-model.js";
import type { SchemaWalker } from "./schema-walk.js";

/** A contract's model and the walker of its schemas, as a coverage hook built them. */
export interface Built<M> {
  model: M;
  /** Only its nodes are reused: what a walk marked on them is not read by a universe. */
  walker: SchemaWalker;
}

/** The parts built of each document (held weakly: a document no longer used is not kept). */
export class BuiltParts<M> {
  private readonly byDocument = new WeakMap<object, Built<M>>();

  keep(document: unknown, built: Built<M>): void {
    if (document !== null && typeof document === "object") this.byDocument.set(document, built);
  }

  of(document: unknown): Built<M> | undefined {
    return document !== null && typeof document === "object" ? this.byDocument.get(document) : undefined;
  }
}

/** The parts the HTTP hooks built. */
export const httpBuilt = new BuiltParts<ContractModel>();
/** The parts the webhook hooks built. */
export const webhookBuilt = new BuiltParts<AsyncApiModel>();
