// Mutual exclusion of the --state lock over every interleaving: several sandboxes start on one state
// file whose lock (and takeover lock) were left by sandboxes that died. Each contender's steps on the
// files are the yields of lockSteps(); a schedule says which one takes its next step. Every schedule
// of two contenders is run, and random ones of three, with crashes and releases among the steps
// (fast-check): at no point do two live sandboxes hold the lock, a live holder's lock file is always
// its own, a refusal names a live sandbox, and with nobody crashing exactly one ends up holding it.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LockStep, lockSteps, type StateLock, StateLockError } from "../../sandbox/state/lock.js";
import { formatHolder, parseHolder, type ProcFacts } from "../../sandbox/state/lock-holder.js";

const BOOT = "6b0c4e8f-1d2a-4c3b-9e5f-0a1b2c3d4e5f";
/** The sandbox that left the lock, and the one that died taking it over. */
const LEFT_LOCK = 900;
const DIED_TAKING_OVER = 901;

interface Contender {
  pid: number;
  token: string;
  steps: Generator<LockStep, StateLock, void>;
  state: "running" | "held" | "refused" | "released";
  lock?: StateLock;
}

/** What the files start as: no lock, a stale lock, or a stale lock and a stale takeover lock. */
type Start = "free" | "stale" | "stale-and-takeover";

/** A state file, its contenders, and which pids are alive (each contender's, until it crashes). */
function world(start: Start, count: number) {
  const file = join(mkdtempSync(join(tmpdir(), "sbx-lock-race-")), "state.json");
  const living = new Set<number>();
  const alive = (pid: number) => living.has(pid);
  // Each pid started at its own tick of this boot.
  const proc: ProcFacts = { boot: () => BOOT, start: (pid) => `${pid * 10}` };
  const options = (pid: number, token: string) => ({ pid, token, alive, proc });
  if (start !== "free")
    writeFileSync(
      `${file}.lock`,
      formatHolder({ pid: LEFT_LOCK, token: "e".repeat(32), boot: BOOT, start: "9000" }),
    );
  if (start === "stale-and-takeover") {
    // A sandbox that died holding the takeover lock: its steps stop there.
    living.add(DIED_TAKING_OVER);
    const dying = lockSteps(file, options(DIED_TAKING_OVER, "d".repeat(32)));
    for (let i = 0; dying.next().value !== "recheck"; i++) expect(i).toBeLessThan(20);
    living.delete(DIED_TAKING_OVER);
    expect(readdirSync(join(file, "..")).some((n) => n.includes(".takeover-"))).toBe(true);
  }
  const contenders: Contender[] = [];
  for (let i = 0; i < count; i++) {
    const pid = 1000 + i;
    const token = `${i + 1}`.repeat(32);
    living.add(pid);
    contenders.push({ pid, token, steps: lockSteps(file, options(pid, token)), state: "running" });
  }
  /** The lock file's holder now, if any. */
  const lockHolder = () => {
    try {
      return parseHolder(readFileSync(`${file}.lock`, "latin1"));
    } catch {
      return undefined;
    }
  };
  const check = () => {
    const holders = contenders.filter((c) => c.state === "held" && living.has(c.pid));
    expect(holders.length).toBeLessThanOrEqual(1);
    for (const h of holders) expect(lockHolder()).toMatchObject({ pid: h.pid, token: h.token });
  };
  /** Contender `c` takes its next step; false when it has none left (or is dead). */
  const step = (c: Contender): boolean => {
    if (c.state !== "running" || !living.has(c.pid)) return false;
    try {
      const next = c.steps.next();
      if (next.done) {
        c.state = "held";
        c.lock = next.value;
      }
    } catch (error) {
      // Refused only by a live sandbox, named: never by a dead one, never without a name.
      expect(error).toBeInstanceOf(StateLockError);
      const by = (error as StateLockError).pid;
      expect(by !== undefined && by !== c.pid && living.has(by), (error as Error).message).toBe(true);
      c.state = "refused";
    }
    check();
    return true;
  };
  const crash = (c: Contender) => {
    living.delete(c.pid);
    check();
  };
  const release = (c: Contender) => {
    if (c.state !== "held" || !living.has(c.pid)) return;
    c.lock?.release();
    c.state = "released";
    check();
  };
  return { file, contenders, step, crash, release, living };
}

/**
 * Run one schedule: `choices[k]` is the contender that takes step k; past its end, the one that took
 * the step before goes on (or the first still running). Returns who ran, and who could have, at each step.
 */
function runSchedule(start: Start, count: number, choices: readonly number[]) {
  const w = world(start, count);
  const runnable: number[][] = [];
  const taken: number[] = [];
  for (let k = 0; ; k++) {
    const running = w.contenders.flatMap((c, i) => (c.state === "running" ? [i] : []));
    if (running.length === 0) break;
    expect(k).toBeLessThan(200);
    const previous = taken[k - 1] ?? -1;
    const pick = choices[k] ?? (running.includes(previous) ? previous : (running[0] as number));
    runnable.push(running);
    taken.push(pick);
    w.step(w.contenders[pick] as Contender);
  }
  // Nobody crashed: one holds it, and no takeover lock is left.
  expect(w.contenders.filter((c) => c.state === "held")).toHaveLength(1);
  expect(readdirSync(join(w.file, "..")).filter((n) => n.includes(".takeover-"))).toEqual([]);
  return { runnable, taken };
}

/**
 * Every schedule of `count` contenders that switches from a contender that could go on to another
 * at most `switches` times (Infinity: every schedule), depth first; returns how many there were.
 */
function everySchedule(start: Start, count: number, switches = Infinity): number {
  let prefix: number[] = [];
  let runs = 0;
  for (;;) {
    const { runnable, taken } = runSchedule(start, count, prefix);
    runs++;
    // Switches made by the first k steps, so that the next schedule's bound is checked at once.
    const made: number[] = [0];
    for (let k = 0; k < taken.length; k++) {
      const preempts =
        k > 0 && taken[k] !== taken[k - 1] && (runnable[k] as number[]).includes(taken[k - 1] as number);
      made.push((made[k] as number) + (preempts ? 1 : 0));
    }
    // The next schedule: the last step with another contender to run there, within the bound. At
    // each step the contenders are tried in one order: the one that goes on by default first.
    let next: number[] | undefined;
    for (let k = taken.length - 1; k >= 0 && !next; k--) {
      const running = runnable[k] as number[];
      const previous = taken[k - 1] ?? -1;
      const first = running.includes(previous) ? previous : (running[0] as number);
      const order = [first, ...running.filter((i) => i !== first)];
      for (const other of order.slice(order.indexOf(taken[k] as number) + 1)) {
        const preempts = k > 0 && other !== previous && running.includes(previous);
        if ((made[k] as number) + (preempts ? 1 : 0) > switches) continue;
        next = [...taken.slice(0, k), other];
        break;
      }
    }
    if (!next) return runs;
    prefix = next;
  }
}

describe("the state lock over every interleaving", () => {
  for (const start of ["free", "stale"] as const)
    it(`two sandboxes, ${start}: every schedule, exactly one holds it`, () => {
      expect(everySchedule(start, 2)).toBe(start === "free" ? 6 : 1080);
    });

  // Past these bounds the schedules number tens of thousands: they are run with few switches, which
  // is where races show (each takes a switch between a judgement and what acts on it).
  it("two sandboxes on a stale lock and a stale takeover lock: every schedule with up to 3 switches", () => {
    expect(everySchedule("stale-and-takeover", 2, 3)).toBe(868);
  });

  it("three sandboxes on a stale lock: every schedule with up to 2 switches", () => {
    expect(everySchedule("stale", 3, 2)).toBeGreaterThan(100);
  });

  it("three sandboxes, any schedule with crashes and releases: never two live holders", () => {
    const action = fc.record({
      who: fc.nat({ max: 2 }),
      act: fc.constantFrom("step", "step", "step", "step", "crash", "release"),
    });
    fc.assert(
      fc.property(
        fc.constantFrom<Start>("free", "stale", "stale-and-takeover"),
        fc.array(action, { maxLength: 60 }),
        (start, actions) => {
          const w = world(start, 3);
          for (const { who, act } of actions) {
            const c = w.contenders[who] as Contender;
            if (act === "step") w.step(c);
            else if (act === "crash") w.crash(c);
            else w.release(c);
          }
          // The living finish, in turn: each in a bounded number of steps.
          for (let k = 0; w.contenders.some((c) => w.step(c)); k++) expect(k).toBeLessThan(200);
        },
      ),
      { numRuns: 300 },
    );
  });
});
