// The sandbox's virtual clock: real time plus an offset the control API can advance. Every timer of
// the sandbox (journeys, retries, archives, the lifespan) is a plain record on this clock, so that
// advancing it fires what falls due in order, and pending timers can be saved with the state.
import { TimerHeap } from "./timer-heap.js";

/** A timer as data: what to do (`kind`, `ref`) and when, in virtual epoch milliseconds. */
export interface Timer {
  id: number;
  at: number;
  kind: string;
  ref: string;
}

/** Runs a timer that fell due; it may schedule more (even ones already due). */
export type TimerHandler = (timer: Timer) => void;

/** Far more timers than one advance can reasonably fire; a guard against a handler that loops. */
const MAX_FIRED_PER_RUN = 1_000_000;

export interface ClockOptions {
  /** How many timers one run may fire before it gives up (1,000,000 by default). */
  maxFiredPerRun?: number;
  /** Told, in one line without values, when timers fired by the real timeout fail (stderr by default). */
  log?: (line: string) => void;
}

/**
 * The latest virtual time the clock reaches. Every record and event writes its times as ISO-8601 with
 * a four-digit year, and a Date past 275760 throws: advances that would pass this are refused.
 */
export const MAX_VIRTUAL_TIME = Date.UTC(9999, 0, 1);

/** The longest real wait setTimeout accepts (about 24.8 days). */
const MAX_REAL_WAIT = 2 ** 31 - 1;

export class VirtualClock {
  private offset = 0;
  private nextId = 1;
  /** Pending timers, earliest first; cancelled ones stay until they reach the head or a compaction. */
  private readonly timers = new TimerHeap();
  /** Live timers by kind and ref, so that a cancel costs no scan of every timer. */
  private readonly byKey = new Map<string, Set<Timer>>();
  /** Timers cancelled but still in `timers`. */
  private readonly cancelled = new Set<Timer>();
  private real: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  private handler: TimerHandler = () => {};

  private readonly maxFiredPerRun: number;
  private readonly log: (line: string) => void;

  constructor(
    private readonly realNow: () => number = Date.now,
    options: ClockOptions = {},
  ) {
    this.maxFiredPerRun = options.maxFiredPerRun ?? MAX_FIRED_PER_RUN;
    this.log = options.log ?? ((line) => console.error(`sandbox: ${line}`));
  }

  /** The virtual time in epoch milliseconds. */
  now(): number {
    return this.realNow() + this.offset;
  }

  /** How far the clock is ahead of real time, in milliseconds. */
  get offsetMs(): number {
    return this.offset;
  }

  /** Set who runs timers that fall due. */
  onTimer(handler: TimerHandler): void {
    this.handler = handler;
  }

  /** Schedule a timer at a virtual time; returns its id. */
  at(at: number, kind: string, ref: string): number {
    const timer: Timer = { id: this.nextId++, at, kind, ref };
    this.timers.push(timer);
    this.index(timer);
    this.arm();
    return timer.id;
  }

  /** Schedule a timer `ms` from now. */
  after(ms: number, kind: string, ref: string): number {
    return this.at(this.now() + ms, kind, ref);
  }

  /** Cancel every pending timer of a kind and ref. */
  cancel(kind: string, ref: string): void {
    const key = `${kind}\n${ref}`;
    const timers = this.byKey.get(key);
    if (!timers) return;
    this.byKey.delete(key);
    for (const t of timers) this.cancelled.add(t);
    // Cancelled timers are dropped in bulk once they are half the list: memory stays within twice the live ones.
    if (this.cancelled.size > 1024 && this.cancelled.size * 2 > this.timers.size) {
      this.timers.retain((t) => !this.cancelled.has(t));
      this.cancelled.clear();
    }
  }

  /** The pending timers, in order (for saving and inspection). */
  pending(): readonly Timer[] {
    return this.timers.sorted().filter((t) => !this.cancelled.has(t));
  }

  /** Move the clock forward and run every timer that falls due, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError("the clock only moves forward");
    if (this.now() + ms > MAX_VIRTUAL_TIME)
      throw new RangeError("the clock cannot move past 9999-01-01T00:00:00Z");
    this.offset += ms;
    this.run();
  }

  /** Restore saved state: the offset and pending timers. */
  restore(offset: number, timers: readonly Timer[]): void {
    this.offset = offset;
    this.timers.reset(timers);
    this.byKey.clear();
    this.cancelled.clear();
    // A loop, not Math.max(...ids): a spread of many timers overflows the call stack.
    for (const t of timers) {
      this.index(t);
      if (t.id >= this.nextId) this.nextId = t.id + 1;
    }
    this.arm();
  }

  /** Stop firing timers (the server is closing). */
  stop(): void {
    this.stopped = true;
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
  }

  /** Run every due timer; re-entrant calls (a handler advancing the clock) fold into the running loop. */
  run(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      let fired = 0;
      for (let next = this.timers.peek(); next && next.at <= this.now(); next = this.timers.peek()) {
        const timer = this.timers.pop() as Timer;
        if (this.cancelled.delete(timer)) continue;
        this.unindex(timer);
        if (++fired > this.maxFiredPerRun) throw new Error("too many timers fell due at once");
        this.handler(timer);
      }
    } finally {
      this.running = false;
      this.arm();
    }
  }

  /** Run from the real timeout, where a throw would be uncaught and end the process: report it instead. */
  private runFromTimeout(): void {
    try {
      this.run();
    } catch {
      // The error's message may quote a record; only that a run failed is said.
      this.log("a timer run failed and was stopped; later timers still run");
    }
  }

  private index(timer: Timer): void {
    const key = `${timer.kind}\n${timer.ref}`;
    const timers = this.byKey.get(key);
    if (timers) timers.add(timer);
    else this.byKey.set(key, new Set([timer]));
  }

  private unindex(timer: Timer): void {
    const key = `${timer.kind}\n${timer.ref}`;
    const timers = this.byKey.get(key);
    timers?.delete(timer);
    if (timers?.size === 0) this.byKey.delete(key);
  }

  /** Arm one real timeout for the earliest pending timer. */
  private arm(): void {
    if (this.running || this.stopped) return;
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
    for (let head = this.timers.peek(); head && this.cancelled.has(head); head = this.timers.peek())
      this.cancelled.delete(this.timers.pop() as Timer);
    const first = this.timers.peek();
    if (!first) return;
    const wait = Math.min(Math.max(first.at - this.now(), 0), MAX_REAL_WAIT);
    this.real = setTimeout(() => this.runFromTimeout(), wait);
    // The servers keep the process alive, not the clock.
    this.real.unref();
  }
}
