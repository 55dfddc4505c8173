// The sandbox's virtual clock: real time plus an offset the control API can advance. Every timer of
// the sandbox (journeys, retries, archives, the lifespan) is a plain record on this clock, so that
// advancing it fires what falls due in order, and pending timers can be saved with the state.
//
// While timers run, the clock reads each one's due time (as fake-timer libraries do): an event is
// stamped when it fell due, and a timer scheduled from "now" by another lands where real time would
// have put it, so chains of timers complete within one advance. A long run fires its timers in
// slices and lets other work (requests, I/O) run between them, so no advance holds the server.
import { TimerHeap } from "./timer-heap.js";
import type { Timer, TimerHandler } from "./timer.js";

export type { Timer, TimerHandler } from "./timer.js";

/**
 * Far more timers than one advance fires (10,000 journeys hold 40,000 timers at once, and 10,000
 * kept deliveries at most 10,000 retries): a guard against a handler that loops, which slices keep
 * from holding the server meanwhile.
 */
const MAX_FIRED_PER_RUN = 100_000_000;

/** Real milliseconds a run fires timers before it lets other work run. */
const SLICE_MS = 10;

export interface ClockOptions {
  /** How many timers one run may fire before it gives up (100,000,000 by default). */
  maxFiredPerRun?: number;
  /** Told, in one line without values, when timers fired by the real timeout fail (stderr by default). */
  log?: (line: string) => void;
  /** Real milliseconds a run fires timers before it yields to other work (10 by default). */
  sliceMs?: number;
}

/**
 * The latest virtual time the clock reaches. Every record and event writes its times as ISO-8601 with
 * a four-digit year, and a Date past 275760 throws: advances that would pass this are refused.
 */
export const MAX_VIRTUAL_TIME = Date.UTC(9999, 0, 1);

/**
 * The latest time a timer may be set for: the clock's end plus the longest delay the sandbox
 * schedules (the 7-day lifespan), with a day to spare. Such a timer never falls due, but it is
 * state the sandbox wrote, and it reads it back.
 */
export const MAX_SCHEDULED_TIME = MAX_VIRTUAL_TIME + 8 * 24 * 3_600_000;

/** The longest real wait setTimeout accepts (about 24.8 days). */
const MAX_REAL_WAIT = 2 ** 31 - 1;

/** A run asked for: an advance by `ms` (0 for the timers already due), settled when it is done. */
interface RunRequest {
  ms: number;
  fromTimeout: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** A reset: run when its turn comes, once the clock has forgotten its timers and offset. */
  reset?: () => void;
  /** Once started: where the clock read before it, where it runs to, and how many timers it fired. */
  from?: number;
  target?: number;
  fired: number;
}

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
  /** While a run fires timers: the virtual time, the due time of the latest timer fired. */
  private pinned: number | undefined;
  /** Runs asked for and not yet done, in order; the first is running. */
  private readonly requests: RunRequest[] = [];
  /** Milliseconds of advances asked for and not yet applied (the limit counts them). */
  private queuedMs = 0;
  private running = false;
  private stopped = false;
  private handler: TimerHandler = () => {};

  private readonly maxFiredPerRun: number;
  private readonly sliceMs: number;
  private readonly log: (line: string) => void;

  constructor(
    private readonly realNow: () => number = Date.now,
    options: ClockOptions = {},
  ) {
    this.maxFiredPerRun = options.maxFiredPerRun ?? MAX_FIRED_PER_RUN;
    this.sliceMs = options.sliceMs ?? SLICE_MS;
    this.log = options.log ?? ((line) => console.error(`sandbox: ${line}`));
  }

  /** The virtual time in epoch milliseconds (while a timer runs: the time it fell due). */
  now(): number {
    return this.pinned ?? this.realNow() + this.offset;
  }

  /** How far the clock is ahead of real time, in milliseconds (as it reads now). */
  get offsetMs(): number {
    return this.pinned === undefined ? this.offset : this.pinned - this.realNow();
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
    // Only a new earliest timer moves the real timeout (a hundred deliveries at once re-armed it a hundred times).
    if (!this.real || this.timers.peek() === timer) this.arm();
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

  /** Whether a timer of a kind and ref is pending. */
  has(kind: string, ref: string): boolean {
    return this.byKey.has(`${kind}\n${ref}`);
  }

  /** The pending timers, in order (for saving and inspection). */
  pending(): readonly Timer[] {
    return this.timers.sorted().filter((t) => !this.cancelled.has(t));
  }

  /** The id the next timer scheduled will have. */
  get nextTimerId(): number {
    return this.nextId;
  }

  /** The number of pending timers (cancelled ones not yet dropped included). */
  get size(): number {
    return this.timers.size;
  }

  /**
   * Move the clock forward by `ms` and run every timer that falls due, in order, each at its due
   * time. Settles once they have all run; other work runs between slices meanwhile. Advances asked
   * for during another run follow it in order. A RangeError (thrown at once) when it would pass
   * MAX_VIRTUAL_TIME; the clock stays where it was.
   */
  advance(ms: number): Promise<void> {
    return this.reserve(ms)();
  }

  /**
   * Check and count an advance by `ms` now, and start it later: the advance as a function to call
   * when its turn comes (the sandbox runs an advance's wait for deliveries before the next starts).
   * The same RangeErrors as advance(), thrown at once; reserved advances count toward the limit.
   */
  reserve(ms: number): () => Promise<void> {
    if (!(ms >= 0)) throw new RangeError("the clock only moves forward");
    if (this.realNow() + this.offset + this.queuedMs + ms > MAX_VIRTUAL_TIME)
      throw new RangeError("the clock cannot move past 9999-01-01T00:00:00Z");
    this.queuedMs += ms;
    let started: Promise<void> | undefined;
    return () => (started ??= this.request(ms, false));
  }

  /**
   * Run every timer due now, after the runs asked for before it; settles once they have all run.
   * An advance by nothing, but never refused: a clock at its end still runs what is due.
   */
  runDue(): Promise<void> {
    return this.request(0, false);
  }

  /**
   * Forget every timer and the offset (the clock reads real time again), after the runs asked for
   * before it and before those asked for after it; `then` runs at that point, with nothing between.
   */
  reset(then: () => void): Promise<void> {
    return this.request(0, false, then);
  }

  /** Restore saved state: the offset and pending timers. */
  restore(offset: number, timers: readonly Timer[]): void {
    // A clock saved at its end has moved on with real time since: it stays at the end.
    this.offset = Math.min(offset, MAX_VIRTUAL_TIME - this.realNow());
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

  /** Stop firing timers (the server is closing); runs asked for settle without firing more. */
  stop(): void {
    this.stopped = true;
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
  }

  /**
   * Run every timer due now. Its first slice runs before this returns (all of it, when it is
   * short); the rest between other work. A run already going covers it.
   */
  run(): void {
    if (this.running || this.stopped) return;
    this.request(0, true).catch(() => {
      // The error's message may quote a record; only that a run failed is said.
      this.log("a timer run failed and was stopped; later timers still run");
    });
  }

  /** A run settled when done; the first request starts the work (its first slice at once). */
  private request(ms: number, fromTimeout: boolean, reset?: () => void): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.requests.push({ ms, fromTimeout, resolve, reject, fired: 0, ...(reset ? { reset } : {}) });
    });
    if (!this.running) this.work();
    return done;
  }

  /**
   * Serve the requests in order, synchronously until a slice runs out of time; then again on the
   * next turn of the event loop, after the I/O waiting. Each request is settled, none throws here.
   */
  private work(): void {
    this.running = true;
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
    for (let request = this.requests[0]; request; request = this.requests[0]) {
      let finished: boolean;
      try {
        if (request.target === undefined) {
          if (request.reset) this.forget(request.reset);
          request.from = this.realNow() + this.offset;
          if (!request.fromTimeout) {
            this.queuedMs -= request.ms;
            this.offset += request.ms;
          }
          request.target = this.realNow() + this.offset;
        }
        finished = this.stopped || this.fireSlice(request);
      } catch (error) {
        this.settle(request, error);
        continue;
      }
      if (!finished) {
        setImmediate(() => this.work());
        return;
      }
      this.settle(request);
    }
    this.running = false;
    this.arm();
  }

  /** Drop every timer and the offset, then run `then` (a reset's turn came). */
  private forget(then: () => void): void {
    this.offset = 0;
    this.pinned = undefined;
    this.timers.reset([]);
    this.byKey.clear();
    this.cancelled.clear();
    then();
  }

  /** The request is done (or failed): the clock reads real time plus the offset again. */
  private settle(request: RunRequest, error?: unknown): void {
    this.pinned = undefined;
    this.requests.shift();
    if (error === undefined) request.resolve();
    else request.reject(error);
  }

  /**
   * Fire the timers due by the request's target, in order, each with the clock at its due time (one
   * already overdue when the request started runs at that start: never backwards), for at most a
   * slice of real time. True when none is left due.
   */
  private fireSlice(request: RunRequest): boolean {
    const from = request.from as number;
    const target = request.target as number;
    const started = performance.now();
    for (let next = this.timers.peek(); next && next.at <= target; next = this.timers.peek()) {
      const timer = this.timers.pop() as Timer;
      if (this.cancelled.delete(timer)) continue;
      this.unindex(timer);
      if (++request.fired > this.maxFiredPerRun) throw new Error("too many timers fell due at once");
      this.pinned = Math.max(this.pinned ?? from, timer.at);
      this.handler(timer);
      if ((request.fired & 15) === 0 && performance.now() - started >= this.sliceMs) return false;
    }
    return true;
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
    this.real = setTimeout(() => this.run(), wait);
    // The servers keep the process alive, not the clock.
    this.real.unref();
  }
}
