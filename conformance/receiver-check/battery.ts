// The receiver battery: what the service sends a webhook receiver, and what it may send one day,
// judged by the rules the interface document gives receivers ("respond 2xx to acknowledge; respond
// quickly", "duplicates may arrive", new event types may be added, Basic/Bearer credentials).
// The cases are in battery-cases.ts; how a delivery is sent and judged, in receiver-session.ts.
import type { ActiveResult } from "../probe/active-report.js";
import { shownUrl } from "../run/url-intake.js";
import { BATTERY_CASES } from "./battery-cases.js";
import { AUTH_VARIABLE, type BatteryOptions, QUERY_VARIABLE, ReceiverSession } from "./receiver-session.js";

export { shownUrl };
export { LARGE_BODY_BYTES, UNKNOWN_EVENT, UNKNOWN_WORKFLOW_EVENT } from "./battery-cases.js";
export { type BatteryOptions, DEFAULT_TIMEOUT_MS, QUERY_VARIABLE, SLOW_ACK_MS } from "./receiver-session.js";

/** Run the battery and give one result per request, in the order sent. */
export async function runBattery(
  options: BatteryOptions,
): Promise<{ results: ActiveResult[]; notes: string[] }> {
  const session = new ReceiverSession(options);
  if (options.url.search !== "")
    session.notes.push(
      `the events URL's query values are shown as [redacted]; its reproducers read the query from $${QUERY_VARIABLE}`,
    );
  for (const batteryCase of BATTERY_CASES) await batteryCase.run(session);
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
