// The virtual clock: timers fire in order of their time when it is advanced, none early, none twice,
// including those a firing timer schedules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Timer, VirtualClock } from "../../sandbox/clock.js";

describe("VirtualClock", () => {
  it("fires every due timer once, in time order, whatever the schedule and the advances", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 1, maxLength: 6 }),
        (delays, advances) => {
          const base = 1_000_000;
          const clock = new VirtualClock(() => base);
          const fired: Timer[] = [];
          clock.onTimer((t) => {
            fired.push(t);
            // A timer may schedule another one, already due or not.
            if (t.kind === "first") clock.at(t.at + 5, "second", t.ref);
          });
          delays.forEach((d, i) => clock.at(base + d, "first", String(i)));
          for (const step of advances) {
            clock.advance(step);
            expect(fired.every((t) => t.at <= clock.now())).toBe(true);
            expect(clock.pending().every((t) => t.at > clock.now())).toBe(true);
          }
          const times = fired.map((t) => t.at);
          expect(times).toEqual([...times].sort((a, b) => a - b));
          expect(new Set(fired.map((t) => t.id)).size).toBe(fired.length);
          clock.stop();
        },
      ),
      { numRuns: 200 },
    );
  });

  it("cancels timers by kind and ref, and only moves forward", () => {
    const clock = new VirtualClock(() => 0);
    const fired: string[] = [];
    clock.onTimer((t) => fired.push(`${t.kind}:${t.ref}`));
    clock.at(10, "a", "1");
    clock.at(10, "a", "2");
    clock.at(10, "b", "1");
    clock.cancel("a", "1");
    clock.advance(10);
    expect(fired).toEqual(["a:2", "b:1"]);
    expect(() => clock.advance(-1)).toThrow(/forward/);
    clock.stop();
  });

  it("reports a run that passes its limit from the real timeout in one line, instead of throwing uncaught", async () => {
    const lines: string[] = [];
    const clock = new VirtualClock(Date.now, { maxFiredPerRun: 10, log: (line) => lines.push(line) });
    // A handler that schedules another due timer each time never lets the run end by itself.
    clock.onTimer((t) => void clock.at(clock.now() - 1, t.kind, "canary-ref-0042"));
    clock.at(clock.now() - 1, "loop", "canary-ref-0042");
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.stop();
    expect(lines[0]).toBe("a timer run failed and was stopped; later timers still run");
    expect(lines.join("\n")).not.toContain("canary");
  });
});
