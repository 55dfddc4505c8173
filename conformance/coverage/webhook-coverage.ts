// The coverage hook of the webhook checks: the event each delivery was, and what its payload reached
// of the message's schema.
import type { AsyncApiModel, MessageModel } from "../checks/asyncapi-model.js";
import { type SchemaNode, SchemaWalker, type WalkSinks } from "./schema-walk.js";
import type { SeenLocations } from "./seen.js";
import { webhookGapLocations } from "./gaps.js";
import { webhookBuilt } from "./built.js";
import { loadCoverageIndex } from "./coverage-index.js";

/**
 * Read the generated coverage index: awaited before any hook is made (with it, hooks on the bundled
 * contract do not search it for gaps). Not a top-level await: the single executables are CommonJS.
 */
export const coverageIndexRead: Promise<void> = loadCoverageIndex();

/** Records what each checked delivery reached of an AsyncAPI contract. */
export class WebhookCoverage {
  readonly walker: SchemaWalker;
  private readonly sinks: WalkSinks;
  private readonly roots = new Map<string, SchemaNode>();

  constructor(
    model: AsyncApiModel,
    private readonly seen: SeenLocations,
  ) {
    this.walker = new SchemaWalker(model.document, webhookGapLocations(model.document));
    webhookBuilt.keep(model.document, { model, walker: this.walker });
    this.sinks = {
      side: 0,
      epoch: () => seen.epoch,
      members: seen.of("members"),
      branches: seen.of("branches"),
      enums: seen.of("enums"),
      gaps: seen.of("gaps"),
    };
  }

  /** A delivery of message `m`, with its JSON payload (undefined when it has none). */
  delivery(m: MessageModel, payload: unknown): void {
    this.seen.add("events", m.location);
    if (!m.payloadPointer || payload === undefined) return;
    let root = this.roots.get(m.payloadPointer);
    if (root === undefined) {
      root = this.walker.at(m.payloadPointer);
      this.roots.set(m.payloadPointer, root);
    }
    this.walker.walk(root, payload, this.sinks);
  }
}
