// The generative phase's walks: a record created from a drawn body, then a drawn path along the
// contract's links (read, export, download, resend, archive…), each target's body drawn too. All
// the draws go through one fast-check generator, so that a failing walk shrinks to fewer, smaller
// steps. What the contract says a link gets (`x-expect`: a state's refusal such as ALREADY_ARCHIVED)
// is expected, never a finding; a link of the answer just received must find its record.
import fc from "fast-check";
import type { ActiveResult } from "./active-report.js";
import type { LinkModel, ProbeOperation } from "./contract-operations.js";
import { bodyArbitraries, type GeneratedBody, UnsatisfiableSchema } from "./generate/index.js";
import { examplePhones, withExamplePhones } from "./generative-phones.js";
import type { Planned } from "./generative-property.js";
import { isLoopback } from "./safety.js";
import type { Expectation, ProbeCase, Sent } from "./probe-case.js";
import type { ProbeSession } from "./session.js";
import { type StepValues, valueOf } from "./workflow-criteria.js";

/** Links followed at most after the creation. */
const MAX_STEPS = 4;
/** Requests a walk's draw costs on average (the creation and half the steps). */
const WALK_COST = 1 + MAX_STEPS / 2;

/** A link that can be followed: where it came from, and the values its parameters take. */
interface Open {
  link: LinkModel;
  params: Map<string, string>;
  /** It came from the answer just received: its record exists, a 404 is a finding. */
  fresh: boolean;
}

/** The JSON a case sent, for a link's condition (`$request.body#/…`); undefined for other bodies. */
function requestJson(c: ProbeCase): unknown {
  if (!c.body?.contentType.includes("json")) return undefined;
  try {
    return JSON.parse(c.body.bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The links an answer gives, with their parameters read from it; a link missing a value is left. */
function linksOf(sent: Sent): Open[] {
  const { answer, json, probeCase } = sent;
  const status = String(answer.status);
  const links = probeCase.op.links.get(status) ?? probeCase.op.links.get(`${status[0]}XX`) ?? [];
  const values: StepValues = {
    statusCode: answer.status,
    requestBody: requestJson(probeCase),
    requestPath: probeCase.params,
    responseBody: json,
    responseHeaders: answer.headers,
    inputs: new Map(),
    steps: new Map(),
  };
  const open: Open[] = [];
  for (const link of links) {
    const params = new Map<string, string>();
    for (const [name, expression] of link.parameters) {
      const value = valueOf(expression, values);
      if (typeof value === "string" || typeof value === "number") params.set(name, String(value));
    }
    if (params.size === link.parameters.size) open.push({ link, params, fresh: true });
  }
  return open;
}

/** What following a link must get. */
function expected(open: Open): Expectation {
  if (open.link.expect)
    return {
      kind: "status",
      status: open.link.expect.status,
      check: "link_state",
      ...(open.link.expect.code ? { code: open.link.expect.code } : {}),
    };
  return open.fresh ? { kind: "not-status", status: 404, check: "link_followed" } : { kind: "any" };
}

/** The walks of the generative phase: one property per creation whose answer gives links. */
export function linkWalks(
  session: ProbeSession,
  ops: ProbeOperation[],
  byId: Map<string, ProbeOperation>,
): Planned<unknown>[] {
  // One factory per operation: fast-check's generator replays a draw only through the same factory.
  const factories = new Map<string, () => fc.Arbitrary<GeneratedBody | undefined>>();
  const phones = examplePhones(session.document);
  const loopback = isLoopback(session.options.baseUrl);
  const drawable = (op: ProbeOperation) => {
    try {
      bodies(op);
      return true;
    } catch (error) {
      if (error instanceof UnsatisfiableSchema) return false;
      throw error;
    }
  };
  const bodies = (op: ProbeOperation) => {
    let factory = factories.get(op.operationId);
    if (!factory) {
      const arbitrary = bodyArbitraries(session.document, op.body!, session.marker).valid.map((b) =>
        withExamplePhones(b, phones, loopback),
      );
      factory = () => arbitrary;
      factories.set(op.operationId, factory);
    }
    return factory;
  };
  const starts = ops.filter(
    (op) => op.body && op.pathParams.length === 0 && op.links.size > 0 && drawable(op),
  );
  return starts.map((start) => ({
    key: `${start.operationId} walk`,
    arbitrary: fc.gen(),
    cost: WALK_COST,
    attempt: (g) => walk(session, start, byId, g as fc.GeneratorValue, bodies, drawable),
  }));
}

/** One walk: the creation, then up to MAX_STEPS links; its results, the failing one last. */
async function walk(
  session: ProbeSession,
  start: ProbeOperation,
  byId: Map<string, ProbeOperation>,
  g: fc.GeneratorValue,
  bodies: (op: ProbeOperation) => () => fc.Arbitrary<GeneratedBody | undefined>,
  drawable: (op: ProbeOperation) => boolean,
): Promise<ActiveResult[] | undefined> {
  const chain = [start.operationId];
  const step = async (c: Omit<ProbeCase, "phase" | "case" | "credentials">) =>
    session.run(
      { ...c, phase: "generative", case: `a walk: ${chain.join(" → ")}`, credentials: "valid" },
      undefined,
      true,
    );
  const first = g(bodies(start));
  // A creation whose drawn body cannot be sent here (generative-phones.ts): no walk from it.
  if (!first) return [];
  const created = await step({
    op: start,
    params: new Map(),
    body: first.body,
    expect: { kind: "accepted", check: "generated_accepted" },
  });
  if (!created) return undefined;
  const results = [created.result];
  if (!created.result.ok) return results;
  let open = linksOf(created);
  const steps = g(fc.integer, { min: 1, max: MAX_STEPS });
  for (let i = 0; i < steps && open.length > 0; i++) {
    const next = open[g(fc.nat, { max: open.length - 1 })]!;
    const op = byId.get(next.link.operationId);
    if (!op) break;
    chain.push(`${op.operationId} (${next.link.name})`);
    const body = op.body && drawable(op) ? g(bodies(op))?.body : undefined;
    if (op.body && !body) break;
    const sent = await step({
      op,
      params: next.params,
      ...(body ? { body } : {}),
      expect: expected(next),
    });
    if (!sent) return results;
    results.push(sent.result);
    if (!sent.result.ok) return results;
    // A link is followed once per walk. Those of earlier answers stay open, but a step may have
    // changed their record (archived it): only the answer just received vouches for its own.
    open = [...open.filter((o) => o !== next).map((o) => ({ ...o, fresh: false })), ...linksOf(sent)];
  }
  return results;
}
