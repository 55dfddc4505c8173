// The timers the --state file holds: the clock's own, and one for each pending delivery without one.
import type { VirtualClock } from "../clock/clock.js";
import type { Timer } from "../clock/timer.js";
import type { Delivery } from "../deliveries/types.js";

/**
 * The clock's pending timers, and a timer for each pending delivery that holds none (one not yet
 * tried, waiting for a free attempt or in flight): its attempt is made at the next start, due when
 * it was, and the file says so.
 */
export function timersToSave(clock: VirtualClock, deliveries: readonly Delivery[]): Timer[] {
  const timers = [...clock.pending()];
  const timed = new Set(timers.filter((t) => t.kind === "delivery").map((t) => t.ref));
  let id = clock.nextTimerId;
  for (const d of deliveries)
    if (d.status === "pending" && !timed.has(d.id))
      timers.push({ id: id++, at: d.next_attempt_at ?? clock.now(), kind: "delivery", ref: d.id });
  // In firing order, as the clock lists its own.
  return timers.sort((a, b) => a.at - b.at || a.id - b.id);
}
