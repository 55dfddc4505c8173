// How the probe judges one answer: the suite's checks on the exchange (only the answer's, for a
// request that breaks the contract on purpose), a server error, a cut-off body, and what the case
// expects of the status and the error code.
import { NOT_JSON, parseJson } from "../traffic/exchange.js";
import type { EntryResult } from "../findings/findings.js";
import type { AnyCheckName } from "./active-checks.js";
import type { ActiveFinding } from "./active-report.js";
import type { Answer } from "./http-send.js";
import type { ProbeCase } from "./probe-case.js";

/** Bytes of an answer's body kept: more than any PDF or zip the contract describes is not needed to judge it. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The findings on an answer. */
export interface Judged {
  violations: ActiveFinding[];
  warnings: ActiveFinding[];
}

/** The finding for a request that got no answer at all. */
export function unanswered(answer: Answer, timeoutMs: number): ActiveFinding {
  return {
    in: "response.status",
    check: "answered",
    pointer: "",
    message:
      answer.failure === "timeout"
        ? `no answer within ${timeoutMs} ms`
        : answer.failure === "refused"
          ? "the connection was refused: nothing listens at --base-url"
          : "the connection closed without an answer",
  };
}

/** The findings on an answer given the suite's verdict (undefined when the body was too costly to check). */
export function judgeAnswer(
  c: ProbeCase,
  answer: Answer,
  verdict: EntryResult | undefined,
  json: unknown,
): Judged {
  // A body too costly to parse (the deployment's bytes): say so, never crash.
  const judged: Judged = verdict ?? {
    violations: [
      {
        in: "response.body",
        check: "response_body_schema",
        pointer: "",
        message: "the body is too large or too deeply nested to check",
      },
    ],
    warnings: [],
  };
  // A negative or auth request breaks the contract on purpose: only the answer is judged.
  const answerOnly = c.phase === "negative" || c.phase === "auth" || c.breaksContract === true;
  const keep = (f: ActiveFinding) => !answerOnly || !f.in.startsWith("request.");
  const violations = judged.violations.filter(keep);
  const warnings = judged.warnings.filter(keep);
  if (answer.truncated)
    warnings.push({
      in: "response.body",
      check: "response_body_schema",
      pointer: "",
      message: `the body is over ${MAX_ANSWER_BYTES} bytes; only its start was checked`,
    });
  if (answer.status >= 500)
    violations.push({
      in: "response.status",
      check: "no_server_error",
      pointer: "",
      message: `answered ${answer.status}: a server error`,
    });
  violations.push(...expectation(c, answer, json));
  return { violations, warnings };
}

/** The JSON body of an answer, or undefined (not JSON, or too costly to parse). */
export function jsonOf(answer: Answer): unknown {
  if (!(answer.headers["content-type"] ?? "").toLowerCase().includes("json")) return undefined;
  try {
    const value = parseJson({ kind: "bytes", bytes: answer.body });
    return value === NOT_JSON ? undefined : value;
  } catch {
    return undefined;
  }
}

/** What the case expects of the status (and the error code), as findings. */
function expectation(c: ProbeCase, answer: Answer, json: unknown): ActiveFinding[] {
  const e = c.expect;
  const status = answer.status;
  const fail = (check: AnyCheckName, message: string): ActiveFinding[] => [
    { in: "response.status", check, pointer: "", message },
  ];
  if (e.kind === "any") return [];
  if (e.kind === "accepted")
    return status >= 200 && status < 300 ? [] : fail(e.check, `answered ${status}; expected 2xx`);
  if (e.kind === "client-error") {
    if (status >= 400 && status < 500) return [];
    return fail(
      e.check,
      `answered ${status}; a request that breaks the contract must get a documented 4xx (${c.op.clientErrors.join(", ")})`,
    );
  }
  if (e.kind === "not-status") return status === e.status ? fail(e.check, `answered ${status}`) : [];
  if (status !== e.status) return fail(e.check, `answered ${status}; expected ${e.status}`);
  if (e.code !== undefined) {
    // Shape B names its code error_code, shape A error_type.
    const body = json !== null && typeof json === "object" ? (json as Record<string, unknown>) : {};
    const member =
      Object.hasOwn(body, "error_type") && !Object.hasOwn(body, "error_code") ? "error_type" : "error_code";
    const code = body[member];
    // The code is compared, never quoted: only the contract's own word is shown.
    if (code !== e.code)
      return [
        {
          in: "response.body",
          check: e.check,
          pointer: `/${member}`,
          message: `expected ${member} ${e.code}`,
        },
      ];
  }
  return [];
}
