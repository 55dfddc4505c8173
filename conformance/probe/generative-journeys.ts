// The generative phase's journeys: the Arazzo workflows of the stateful phase, run with drawn
// values. A journey's creation sends its step's own members (what the journey's criteria rely on)
// with the members it leaves out drawn from the contract, then every step as the workflow states
// it, up to the first awaited event (no event is awaited here). A failing journey shrinks, through
// fast-check's generator, to the fewest drawn members that still fail it.
import fc from "fast-check";
import type { Json } from "../../src/contract/json.js";
import { list, show } from "../../src/arazzo/documents.js";
import { AjvCompiler } from "../../src/contract/ajv-compiler.js";
import { ContractModel } from "../checks/contract-model.js";
import type { ProbeOperation } from "./contract-operations.js";
import { bodyArbitraries, type GeneratedBody, UnsatisfiableSchema } from "./generate/index.js";
import { examplePhones, withExamplePhones } from "./generative-phones.js";
import type { Planned } from "./generative-property.js";
import { isLoopback } from "./safety.js";
import { exampleBody, markReferences } from "./request-body.js";
import type { ProbeSession } from "./session.js";
import type { EventWaits } from "./workflow-events.js";
import { type DrawnRun, packageWorkflows, runWorkflow, type Workflow } from "./workflow-run.js";

/** No event is awaited by a drawn journey: it stops after the first step that awaits one. */
const NO_EVENTS: EventWaits = {
  awaitAll: async (_at, step) => (list(step?.["x-receive"]).length > 0 ? "unchecked" : "ok"),
  movesClock: () => false,
  close: async () => undefined,
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The step's own members over the drawn ones (top level: a member the step sets is its, whole). */
function overlay(drawn: unknown, payload: unknown): unknown {
  if (!isRecord(drawn) || !isRecord(payload)) return payload;
  const out: Record<string, unknown> = {};
  for (const source of [drawn, payload])
    for (const [key, value] of Object.entries(source))
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Whether a JSON body meets its operation's request schema (the suite's compiled validator). */
function bodyValidator(document: Json): (operationId: string, value: unknown) => boolean {
  const model = new ContractModel(document, new AjvCompiler(document));
  const media = new Map(model.operations.map((o) => [o.operationId, o.requestBody?.media[0]]));
  return (operationId, value) => {
    const holder = media.get(operationId);
    return holder !== undefined && model.validatorOf(holder)(value) === true;
  };
}

/** Requests a journey's draw costs: its steps up to the first that awaits an event. */
function stepsUntilEvent(workflow: Workflow): number {
  const at = workflow.steps.findIndex((s: Json) => list(s?.["x-receive"]).length > 0);
  return at < 0 ? workflow.steps.length : at + 1;
}

/** The drawn bodies of a journey's creation, or undefined when its first step is not one. */
function creationBodies(session: ProbeSession, op: ProbeOperation | undefined) {
  if (!op?.body || op.pathParams.length > 0 || op.body.mediaType !== "application/json") return undefined;
  try {
    return bodyArbitraries(session.document, op.body, session.marker).valid;
  } catch (error) {
    if (error instanceof UnsatisfiableSchema) return undefined;
    throw error;
  }
}

/** The journeys of the generative phase: one property per workflow that begins with a creation. */
export function journeyWalks(
  session: ProbeSession,
  ops: ProbeOperation[],
  byId: Map<string, ProbeOperation>,
): Planned<unknown>[] {
  const selected = new Set(ops.map((op) => op.operationId));
  const out: Planned<unknown>[] = [];
  const valid = bodyValidator(session.document);
  const phones = examplePhones(session.document);
  const loopback = isLoopback(session.options.baseUrl);
  for (const workflow of packageWorkflows()) {
    const names = workflow.steps.map((s: Json) => show(s?.operationId));
    if (!names.every((n) => selected.has(n) && byId.has(n))) continue;
    const first = byId.get(names[0]!);
    const bodies = creationBodies(session, first);
    if (!first || !bodies) continue;
    // One factory: fast-check's generator replays a draw only through the same one.
    const factory = (): fc.Arbitrary<GeneratedBody> => bodies;
    out.push({
      key: `${workflow.id} journey`,
      arbitrary: fc.gen(),
      cost: stepsUntilEvent(workflow),
      attempt: async (g) => {
        const draw: DrawnRun["draw"] = (op, payload) => {
          if (op !== first || payload === undefined) return undefined;
          const drawn = (g as fc.GeneratorValue)(factory).value;
          const merged = markReferences(overlay(drawn, payload), session.marker);
          // Members drawn beside the step's own may make another alternative (a oneOf): then as written.
          if (!valid(op.operationId, merged)) return undefined;
          const body = exampleBody(op.body!.mediaType, merged, session.marker);
          // Its phone members the contract's own numbers (generative-phones.ts); else as written.
          return withExamplePhones({ body, value: merged }, phones, loopback)?.body;
        };
        const run: DrawnRun = { draw, results: [] };
        await runWorkflow(session, workflow, byId, NO_EVENTS, run);
        return run.results.length > 0 ? run.results : undefined;
      },
    });
  }
  return out;
}
