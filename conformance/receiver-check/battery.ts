// The receiver battery: what the service sends a webhook receiver, and what it may send one day,
// judged by the rules the interface document gives receivers ("respond 2xx to acknowledge; respond
// quickly", "duplicates may arrive", new event types may be added, Basic/Bearer credentials).
// The cases are in battery-cases.ts; how a delivery is sent and judged, in receiver-session.ts.
import type { ActiveResult } from "../probe/active-report.js";
import { shownUrl } from "../run/url-intake.js";
import { BATTERY_CASES } from "./battery-cases.js";
import { type BatteryOptions, QUERY_VARIABLE, ReceiverSession } from "./receiver-session.js";

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
  return { results: session.results, notes: session.notes };
}
