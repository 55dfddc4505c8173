// The virtual clock: timers fire in order of their time when it is advanced, none early, none twice,
// including those a firing timer schedules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Timer, VirtualClock } from "../../sandbox/clock/clock.js";

describe("VirtualClock", () => {
  it("fires every due timer once, in time order, at its due time, whatever the schedule and the advances", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 1, maxLength: 6 }),
        async (delays, advances) => {
          const base = 1_000_000;
          const clock = new VirtualClock(() => base);
          const fired: Timer[] = [];
          clock.onTimer((t) => {
            // The clock reads the timer's due time while it runs, whatever the advance's end.
            expect(clock.now()).toBe(t.at);
            fired.push(t);
            // A timer may schedule another one, already due or not.
            if (t.kind === "first") clock.at(t.at + 5, "second", t.ref);
          });
          delays.forEach((d, i) => clock.at(base + d, "first", String(i)));
          for (const step of advances) {
            await clock.advance(step);
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
    void clock.advance(10);
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

describe("VirtualClock against a plain list", () => {
  it("fires what a sorted list would, whatever is scheduled, cancelled and advanced", () => {
    type Op = ["at", number, number] | ["cancel", number] | ["advance", number];
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.tuple(fc.constant("at" as const), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 5 })),
      fc.tuple(fc.constant("cancel" as const), fc.integer({ min: 0, max: 5 })),
      fc.tuple(fc.constant("advance" as const), fc.integer({ min: 0, max: 200 })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const clock = new VirtualClock(() => 0);
        const fired: number[] = [];
        clock.onTimer((t) => fired.push(t.id));
        let model: Timer[] = [];
        const modelFired: number[] = [];
        let nextId = 1;
        for (const o of ops) {
          if (o[0] === "at") {
            clock.at(clock.now() + o[1], "k", String(o[2]));
            model.push({ id: nextId++, at: clock.now() + o[1], kind: "k", ref: String(o[2]) });
          } else if (o[0] === "cancel") {
            clock.cancel("k", String(o[1]));
            model = model.filter((t) => t.ref !== String(o[1]));
          } else {
            clock.advance(o[1]);
            model.sort((a, b) => a.at - b.at || a.id - b.id);
            while (model[0] && model[0].at <= clock.now()) modelFired.push((model.shift() as Timer).id);
          }
          expect(fired).toEqual(modelFired);
        }
        expect(clock.pending().map((t) => t.id)).toEqual(
          [...model].sort((a, b) => a.at - b.at || a.id - b.id).map((t) => t.id),
        );
        clock.stop();
      }),
      { numRuns: 100 },
    );
  });
});

describe("VirtualClock, a long advance", () => {
  it("runs in slices: other work runs meanwhile and sees the clock at the timer last run, and advances queue in order", async () => {
    const real = 0;
    // Each timer takes 1 ms of (fake) real time: a slice of 10 ms holds about 10 of them.
    const clock = new VirtualClock(() => real, { sliceMs: 10 });
    const realPerf = performance.now.bind(performance);
    let perf = 0;
    performance.now = () => perf;
    try {
      const fired: number[] = [];
      clock.onTimer((t) => {
        perf += 1;
        fired.push(t.at);
      });
      for (let i = 1; i <= 200; i++) clock.at(i * 1000, "t", String(i));
      const seen: number[] = [];
      const first = clock.advance(150_000);
      const second = clock.advance(100_000);
      // The first slice ran at once; the rest waits for later turns of the event loop.
      expect(fired.length).toBeGreaterThan(0);
      expect(fired.length).toBeLessThan(150);
      while (fired.length < 200) {
        seen.push(clock.now());
        await new Promise((resolve) => setImmediate(resolve));
      }
      await first;
      await second;
      expect(fired).toEqual(Array.from({ length: 200 }, (_, i) => (i + 1) * 1000));
      // Work between slices read the time of the last timer run: never past the advance, never back.
      expect(seen.length).toBeGreaterThan(5);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen.every((t) => fired.includes(t))).toBe(true);
      expect(clock.now()).toBe(250_000);
    } finally {
      performance.now = realPerf;
      clock.stop();
    }
  });
});
