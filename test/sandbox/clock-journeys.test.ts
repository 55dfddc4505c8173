// The virtual clock runs each timer at its due time: for any set of journeys and any split of a
// duration into advances, the events and their times are those of one advance of the whole
// duration, and those real time gives (the lifecycle's schedule, computed here on its own from
// docs/sandbox.md's tables).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  HOUR,
  LIFESPAN_MS,
  PENDING_RETRY_MS,
  PENDING_WINDOW_MS,
} from "../../sandbox/products/biometric/lifecycle.js";
import type { Journey } from "../../sandbox/products/magic.js";
import { Sandbox } from "../../sandbox/sandbox.js";

const BASE = Date.UTC(2026, 10, 25, 9, 0, 0);
const JOURNEYS: (Journey | null)[] = ["pass", "review", "fail", "pending", "pending-error", "error", null];

/** What real time gives: each verification's events from its creation at BASE, up to `end`. */
function expected(journey: Journey | null, delay: number, end: number): [number, string][] {
  const events: [number, string][] = [[0, "created"]];
  const pending = delay / 2;
  switch (journey) {
    case "pass":
    case "review":
    case "fail":
      events.push([delay, "completed"], [LIFESPAN_MS, "archived"]);
      break;
    case "error":
      events.push([delay, "error"]);
      break;
    case "pending":
      events.push([pending, "pending"], [pending + delay, "completed"], [LIFESPAN_MS, "archived"]);
      break;
    case "pending-error":
      for (let t = 0; t < PENDING_WINDOW_MS; t += PENDING_RETRY_MS) events.push([pending + t, "pending"]);
      events.push([pending + PENDING_WINDOW_MS, "error"]);
      break;
    case null:
      events.push([LIFESPAN_MS, "archived"]);
  }
  return events.filter(([at]) => BASE + at <= end);
}

/** Start the journeys at BASE, advance by each step in turn; every verification's events with their times. */
async function run(journeys: (Journey | null)[], delay: number, steps: number[]) {
  const sandbox = new Sandbox({
    credentials: { apiKey: "k", secret: "s" },
    journeyDelayMs: delay,
    // Real time stands still: only the advances move the clock.
    realNow: () => BASE,
  });
  const ids = journeys.map(
    (journey, i) =>
      sandbox.biometric.create({ reference: `r-${i}`, sendSms: false, ...(journey ? { journey } : {}) })
        .transaction_id,
  );
  for (const step of steps) await sandbox.advance(step);
  const events = ids.map((id) =>
    (sandbox.biometric.find(id)?.events ?? []).map((e): [number, string] => [
      Date.parse(e.at) - BASE,
      e.event,
    ]),
  );
  const end = sandbox.clock.now();
  await sandbox.close();
  return { events, end };
}

/** A duration, and a split of it into advances. */
const split = fc
  .tuple(
    fc.integer({ min: 0, max: LIFESPAN_MS + 2 * HOUR }),
    fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
  )
  .map(([total, cuts]) => {
    const points = [0, ...cuts.map((c) => Math.floor(c * total)), total].sort((a, b) => a - b);
    return { total, steps: points.slice(1).map((p, i) => p - (points[i] as number)) };
  });

describe("the virtual clock runs each timer at its due time", () => {
  it("any split of a duration into advances gives the events and times of one advance, and of real time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...JOURNEYS), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 2, max: 20_000 }).map((ms) => ms * 2),
        split,
        async (journeys, delay, { total, steps }) => {
          const whole = await run(journeys, delay, [total]);
          const parts = await run(journeys, delay, steps);
          expect(parts.end).toBe(BASE + total);
          expect(parts.events).toEqual(whole.events);
          expect(whole.events).toEqual(journeys.map((j) => expected(j, delay, BASE + total)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("sandbox-pending-error: one advance of 24 hours after the pending event ends in error, each event at its hour", async () => {
    const { events } = await run(["pending-error"], 2000, [1000, PENDING_WINDOW_MS]);
    expect(events[0]?.map(([, e]) => e)).toEqual(["created", ...Array(6).fill("pending"), "error"]);
    expect(events[0]?.map(([at]) => at)).toEqual([
      0,
      1000,
      ...[1, 2, 3, 4, 5, 6].map((n) => 1000 + n * 4 * HOUR),
    ]);
  });

  it("sandbox-pending: completed within one advance of 10 seconds", async () => {
    const { events } = await run(["pending"], 2000, [10_000]);
    expect(events[0]).toEqual([
      [0, "created"],
      [1000, "pending"],
      [3000, "completed"],
    ]);
  });
});
