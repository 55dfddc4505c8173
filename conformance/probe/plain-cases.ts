// The cases of the examples, negative and auth phases: each operation's examples, requests that
// break one rule each, and wrong credentials, all made from the contract.
import { AUTH_VARIANTS } from "./credentials.js";
import { exampleParams, type ProbeOperation } from "./contract-operations.js";
import { formMutations, jsonMutations, type Mutation } from "./mutations.js";
import { exampleBody } from "./request-body.js";
import type { Phase, ProbeCase } from "./probe-case.js";
import type { ProbeSession } from "./session.js";
import { isLoopback, unknownId } from "./safety.js";

/** The statuses that say a request body is at fault. */
const BODY_ERRORS = new Set([400, 413, 415, 422]);

/**
 * The path parameters of the examples, negative and auth phases: the contract's examples on this
 * machine; elsewhere ids the deployment cannot have, so that no request reaches (or, a download,
 * archives) a real record that happens to bear an example's id.
 */
function plainParams(session: ProbeSession, op: ProbeOperation): Map<string, string> {
  const params = exampleParams(op);
  if (isLoopback(session.options.baseUrl)) return params;
  for (const p of op.pathParams) params.set(p.name, unknownId(p.schema, session.random));
  return params;
}

/** The cases of the examples, negative and auth phases. */
export function plainCases(session: ProbeSession, ops: ProbeOperation[], phases: Set<Phase>): ProbeCase[] {
  const cases: ProbeCase[] = [];
  for (const op of ops) {
    const params = plainParams(session, op);
    const examples = op.body?.examples.length ? op.body.examples : [{ name: "", value: {} }];
    const first = session.bodyFor(op);
    if (phases.has("examples")) {
      if (!op.body)
        cases.push({
          phase: "examples",
          case: "the contract's example parameters",
          op,
          params,
          credentials: "valid",
          expect: { kind: "any" },
        });
      else
        for (const example of examples)
          cases.push({
            phase: "examples",
            case: `example ${example.name}`,
            op,
            params,
            body: exampleBody(op.body.mediaType, example.value, session.marker, op.body.schema),
            credentials: "valid",
            // A creation's example must be accepted; an operation on an id may find no such record.
            expect:
              op.pathParams.length === 0 ? { kind: "accepted", check: "example_accepted" } : { kind: "any" },
          });
    }
    if (phases.has("negative")) {
      const mutations: Mutation[] = [];
      // A broken body can only get a documented answer from an operation that documents one for it.
      const refusesBodies = op.clientErrors.some((s) => BODY_ERRORS.has(s));
      if (op.body && !refusesBodies)
        session.notes.push(
          `negative: ${op.operationId} documents no 4xx for a broken body (${op.clientErrors.join(", ")}): its broken bodies were not sent`,
        );
      else if (op.body?.mediaType === "multipart/form-data")
        mutations.push(...formMutations(String(op.body.schema?.required?.[0] ?? "file")));
      else if (op.body)
        mutations.push(
          ...jsonMutations(
            session.document,
            op.body.schema,
            examples[0]?.value,
            session.marker,
            session.random,
            op.body.mediaType,
          ),
        );
      for (const p of op.pathParams)
        if (p.schema?.type === "integer")
          mutations.push({
            rule: `path parameter ${p.name} not an integer`,
            body: first.body ?? { bytes: Buffer.alloc(0), contentType: "" },
          });
      for (const m of mutations) {
        const badParam = /^path parameter (\S+) not an integer$/.exec(m.rule)?.[1];
        cases.push({
          phase: "negative",
          case: m.rule,
          op,
          params: badParam ? new Map([...params, [badParam, "not-an-integer"]]) : params,
          ...(m.body.contentType ? { body: m.body } : {}),
          credentials: "valid",
          expect: { kind: "client-error", check: "negative_refused" },
        });
      }
    }
    if (phases.has("auth") && op.auth !== "none") {
      for (const variant of AUTH_VARIANTS[op.auth])
        cases.push({
          phase: "auth",
          case: variant === "none" ? "no credentials" : variant.replace(/-/g, " "),
          op,
          params,
          ...first,
          credentials: variant,
          expect: { kind: "status", status: 401, check: "auth_refused" },
        });
      if (op.credentialsAtRisk)
        cases.push({
          phase: "auth",
          case: "credentials sent from a browser script (Origin header)",
          op,
          params,
          ...first,
          credentials: "valid",
          extraHeaders: [["Origin", "https://probe.invalid"]],
          expect: { kind: "status", status: 400, check: "credentials_at_risk", code: "CRED_AT_RISK" },
        });
    }
  }
  return cases;
}
