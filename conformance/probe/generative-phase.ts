// The generative phase: requests drawn from the contract's own rules (./generate/), not its
// examples. Each creation gets bodies the contract accepts, which must get a 2xx, and bodies that
// break one rule, which must get a documented 4xx; operations on a record get drawn ids (on this
// machine only); walks follow the contract's links from a record made of drawn values
// (generative-walk.ts), and the Arazzo journeys run with drawn members (generative-journeys.ts).
// The budgets (requests and time) are spread over the properties.
import fc from "fast-check";
import {
  bodyArbitraries,
  type BrokenBody,
  type GeneratedBody,
  pathValueArbitrary,
  UnsatisfiableSchema,
} from "./generate/index.js";
import type { ProbeOperation } from "./contract-operations.js";
import { examplePhones, withExamplePhones } from "./generative-phones.js";
import { checkProperty, type Planned, type Reported } from "./generative-property.js";
import { journeyWalks } from "./generative-journeys.js";
import { linkWalks } from "./generative-walk.js";
import { DEFAULT_GENERATIVE_MS, type ProbeCase } from "./probe-case.js";
import type { ProbeSession } from "./session.js";
import { isLoopback } from "./safety.js";

/** A property's runs at most: past this, a run's budget goes to the other properties. */
const MAX_RUNS = 1000;
/** The share of the spare requests left for shrinking. */
const SHRINK_SHARE = 0.25;

/** The generative phase's cases' common members. */
const generated = (
  op: ProbeOperation,
  what: string,
): Pick<ProbeCase, "phase" | "case" | "op" | "credentials"> => ({
  phase: "generative",
  case: what,
  op,
  credentials: "valid",
});

/** Send one case quietly: its result, or undefined when the budget is spent. */
async function sendQuietly(session: ProbeSession, c: ProbeCase) {
  const sent = await session.run(c, undefined, true);
  return sent ? [sent.result] : undefined;
}

/** The body properties of a creation: drawn bodies it must accept, and bodies it must refuse. */
function bodyProperties(session: ProbeSession, op: ProbeOperation): Planned<unknown>[] {
  if (!op.body || op.pathParams.length > 0) return [];
  const drawn = bodyArbitraries(session.document, op.body, session.marker);
  const phones = examplePhones(session.document);
  const loopback = isLoopback(session.options.baseUrl);
  const valid = drawn.valid.map((b) => withExamplePhones(b, phones, loopback));
  const broken = drawn.broken?.map((b) => withExamplePhones(b, phones, loopback));
  const out: Planned<unknown>[] = [
    {
      key: `${op.operationId} valid`,
      arbitrary: valid,
      cost: 1,
      attempt: async (g) =>
        // A body that cannot be sent here (see generative-phones.ts) is not sent: nothing to judge.
        !g
          ? []
          : sendQuietly(session, {
              ...generated(op, "a drawn body the contract accepts"),
              params: new Map(),
              body: (g as GeneratedBody).body,
              expect: { kind: "accepted", check: "generated_accepted" },
            }),
    },
  ];
  if (broken)
    out.push({
      key: `${op.operationId} broken`,
      arbitrary: broken,
      cost: 1,
      attempt: async (b) =>
        !b
          ? []
          : sendQuietly(session, {
              ...generated(op, `a drawn body with ${(b as BrokenBody).rule}`),
              params: new Map(),
              body: (b as BrokenBody).body,
              expect: { kind: "client-error", check: "generated_refused" },
              breaksContract: true,
            }),
    });
  return out;
}

/** Drawn path parameters of an operation on a record, with its first example body: any documented answer. */
function idProperty(session: ProbeSession, op: ProbeOperation): Planned<unknown> | undefined {
  if (op.pathParams.length === 0) return undefined;
  const names = op.pathParams.map((p) => p.name);
  const values = op.pathParams.map((p) => pathValueArbitrary(session.document, p.schema));
  const first = session.bodyFor(op);
  return {
    key: `${op.operationId} ids`,
    arbitrary: fc.tuple(...values),
    cost: 1,
    attempt: (drawn) =>
      sendQuietly(session, {
        ...generated(op, "drawn path parameters"),
        params: new Map(names.map((n, i) => [n, (drawn as string[])[i]!])),
        ...first,
        expect: { kind: "any" },
      }),
  };
}

/** The properties of the generative phase for these operations, as tasks sharing its budgets. */
export function generativeTasks(
  session: ProbeSession,
  ops: ProbeOperation[],
  byId: Map<string, ProbeOperation>,
): (() => Promise<void>)[] {
  const planned: Planned<unknown>[] = [];
  const onThisMachine = isLoopback(session.options.baseUrl);
  for (const op of ops)
    try {
      planned.push(...bodyProperties(session, op));
      const ids = onThisMachine ? idProperty(session, op) : undefined;
      if (ids) planned.push(ids);
    } catch (error) {
      // A contract (--spec) whose schema no value meets: said once, the other operations go on.
      if (!(error instanceof UnsatisfiableSchema)) throw error;
      session.notes.push(`generative: ${op.operationId} was not sent drawn requests: ${error.message}`);
    }
  planned.push(...linkWalks(session, ops, byId), ...journeyWalks(session, ops, byId));
  if (!onThisMachine && ops.some((op) => op.pathParams.length > 0))
    session.notes.push(
      "generative: not a loopback host: no drawn ids were sent (one could name a real record); the walks follow links from records the probe made",
    );
  const weight = planned.reduce((sum, p) => sum + p.cost, 0);
  const spare = Math.floor(session.spare * (1 - SHRINK_SHARE));
  const totalMs = session.options.generativeMs ?? DEFAULT_GENERATIVE_MS;
  // The pool runs `concurrency` properties at once: each gets its slice of the phase's time.
  const sliceMs = Math.max(
    1,
    Math.floor((totalMs * session.options.concurrency) / Math.max(1, planned.length)),
  );
  const reported: Reported = new Set();
  return planned.map((p) => async () => {
    const numRuns = Math.max(1, Math.min(MAX_RUNS, Math.floor(spare / Math.max(1, weight))));
    await checkProperty(session, { ...p, numRuns, timeLimitMs: sliceMs }, reported);
  });
}
