// The sandbox's virtual clock: real time plus an offset the control API can advance. Every timer of
// the sandbox (journeys, retries, archives, the lifespan) is a plain record on this clock, so that
// advancing it fires what falls due in order, and pending timers can be saved with the state.

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

/** The longest real wait setTimeout accepts (about 24.8 days). */
const MAX_REAL_WAIT = 2 ** 31 - 1;

export class VirtualClock {
  private offset = 0;
  private nextId = 1;
  /** Pending timers, sorted by `at` then `id`. */
  private timers: Timer[] = [];
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
    // Binary search keeps the list sorted; timers are few compared to requests.
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const t = this.timers[mid] as Timer;
      if (t.at < at || (t.at === at && t.id < timer.id)) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
    this.arm();
    return timer.id;
  }

  /** Schedule a timer `ms` from now. */
  after(ms: number, kind: string, ref: string): number {
    return this.at(this.now() + ms, kind, ref);
  }

  /** Cancel every pending timer of a kind and ref. */
  cancel(kind: string, ref: string): void {
    this.timers = this.timers.filter((t) => t.kind !== kind || t.ref !== ref);
  }

  /** The pending timers, in order (for saving and inspection). */
  pending(): readonly Timer[] {
    return this.timers;
  }

  /** Move the clock forward and run every timer that falls due, in order. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError("the clock only moves forward");
    this.offset += ms;
    this.run();
  }

  /** Restore saved state: the offset and pending timers. */
  restore(offset: number, timers: readonly Timer[]): void {
    this.offset = offset;
    this.timers = [...timers].sort((a, b) => a.at - b.at || a.id - b.id);
    this.nextId = Math.max(this.nextId, ...this.timers.map((t) => t.id + 1));
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
      while (this.timers.length > 0 && (this.timers[0] as Timer).at <= this.now()) {
        const timer = this.timers.shift() as Timer;
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

  /** Arm one real timeout for the earliest pending timer. */
  private arm(): void {
    if (this.running || this.stopped) return;
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
    const first = this.timers[0];
    if (!first) return;
    const wait = Math.min(Math.max(first.at - this.now(), 0), MAX_REAL_WAIT);
    this.real = setTimeout(() => this.runFromTimeout(), wait);
    // The servers keep the process alive, not the clock.
    this.real.unref();
  }
}
