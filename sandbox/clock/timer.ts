// A timer of the virtual clock as data, what the clock, its heap and the --state file share.

/** A timer as data: what to do (`kind`, `ref`) and when, in virtual epoch milliseconds. */
export interface Timer {
  id: number;
  at: number;
  kind: string;
  ref: string;
}

/** Runs a timer that fell due; it may schedule more (even ones already due). */
export type TimerHandler = (timer: Timer) => void;
