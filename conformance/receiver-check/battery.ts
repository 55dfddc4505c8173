// The receiver battery: what the service sends a webhook receiver, and what it may send one day,
// judged by the rules the interface document gives receivers ("respond 2xx to acknowledge; respond
// quickly", "duplicates may arrive", new event types may be added, Basic/Bearer credentials).
// The cases are data in battery-cases.ts; how a delivery is sent and judged, in receiver-session.ts.
import type { ActiveFinding, ActiveResult } from "../probe/active-report.js";
import { shownUrl } from "../run/url-intake.js";
import { BATTERY_CASES, type PlannedDelivery } from "./battery-cases.js";
import {
  answerFinding,
  AUTH_VARIABLE,
  type BatteryOptions,
  QUERY_VARIABLE,
  ReceiverSession,
} from "./receiver-session.js";

export { shownUrl };
export { LARGE_BODY_BYTES, UNKNOWN_EVENT, UNKNOWN_WORKFLOW_EVENT } from "./battery-cases.js";
export { type BatteryOptions, DEFAULT_TIMEOUT_MS, QUERY_VARIABLE, SLOW_ACK_MS } from "./receiver-session.js";

/** Malformed JSON: refusing it (4xx) is right; acknowledging it hides a fault; no answer is a crash. */
async function judgeMalformed(s: ReceiverSession, p: PlannedDelivery): Promise<void> {
  const d = s.delivery(p);
  const bad = await s.post(d);
  const violations: ActiveFinding[] = [];
  const warnings: ActiveFinding[] = [];
  if (bad.status === 0 || bad.status >= 500)
    violations.push(
      answerFinding(
        p.check,
        bad.status === 0
          ? "the connection closed without an answer: the receiver crashed on a body it could not parse"
          : `answered ${bad.status}: the receiver failed on a body it could not parse (a 4xx says the body is at fault)`,
      ),
    );
  else if (bad.status >= 200 && bad.status < 300)
    warnings.push(
      answerFinding(
        p.check,
        `answered ${bad.status}: acknowledging a body that cannot be processed hides the fault; answer 400`,
      ),
    );
  if (!(await s.stillAnswers()))
    violations.push(answerFinding(p.check, "after malformed JSON the receiver no longer answers"));
  s.record(d, bad, violations, warnings);
}

/** A body that may bring a receiver down: any answer, or a closed connection; then it must answer. */
async function judgeSurvive(s: ReceiverSession, p: PlannedDelivery): Promise<void> {
  const d = s.delivery(p);
  const answer = await s.post(d);
  const alive = await s.stillAnswers();
  const message = `after ${p.case} the receiver no longer answers`;
  s.record(d, answer, alive ? [] : [answerFinding(p.check, message)], []);
}

/** Send one planned delivery and judge its answer as the plan says. */
async function sendPlanned(s: ReceiverSession, p: PlannedDelivery): Promise<void> {
  if (p.judge === "ack") await s.expectAck(s.delivery(p), p.check, p.accept3xx === true);
  else if (p.judge === "refusal") await s.expectRefusal(s.delivery(p));
  else if (p.judge === "malformed") await judgeMalformed(s, p);
  else await judgeSurvive(s, p);
}

/** Run the battery and give one result per request, in the order sent. */
export async function runBattery(
  options: BatteryOptions,
): Promise<{ results: ActiveResult[]; notes: string[] }> {
  const session = new ReceiverSession(options);
  if (options.url.search !== "")
    session.notes.push(
      `the events URL's query values are shown as [redacted]; its reproducers read the query from $${QUERY_VARIABLE}`,
    );
  for (const batteryCase of BATTERY_CASES) {
    const planned = batteryCase.plan(session.context);
    if (planned.length === 0) continue;
    // Without credentials the deliveries go without them, and the credential checks mean nothing.
    if (batteryCase.name === "credentials" && !options.auth) {
      session.notes.push(
        "no --auth given: deliveries were sent without credentials and the credential checks were not run",
      );
      continue;
    }
    if (planned.some((p) => p.target === "workflow") && !options.workflowUrl) {
      session.notes.push("no --workflow-url given: the workflow case deliveries were not sent");
      continue;
    }
    for (const p of planned) await sendPlanned(session, p);
  }
  const hint = credentialsHint(session);
  return { results: session.results, notes: hint ? [hint, ...session.notes] : session.notes };
}

/**
 * One line when every delivery that should have been acknowledged was refused as unauthenticated:
 * the credentials are wrong (or missing), not each case; the separate failures do not say so.
 */
function credentialsHint(session: ReceiverSession): string | undefined {
  const statuses = session.ackStatuses;
  const first = statuses[0];
  if ((first !== 401 && first !== 403) || !statuses.every((s) => s === first)) return undefined;
  return session.auth
    ? `every delivery sent with the configured credentials answered ${first}: check ${AUTH_VARIABLE} / --auth`
    : `every delivery answered ${first} and no credentials were given: pass them with --auth or ${AUTH_VARIABLE}`;
}
