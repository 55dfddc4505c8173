// What the --state file holds, as the sandbox writes it and restores it (state/file.ts reads and
// writes the file; Sandbox.toState and Sandbox.restore make and take its data).
import type { Timer } from "../clock/timer.js";
import type { Delivery, Receiver } from "../deliveries/types.js";

/** The state file's data: the clock, the ids, each product's slice (by its name, in PRODUCTS' order), receivers, deliveries. */
export interface StateData {
  clock_offset_ms: number;
  timers: Timer[];
  ids: [string, number][];
  /** A product's records: alone (`values`) or as [key, record] pairs (`entries`). */
  [product: string]: unknown;
  receivers: Receiver[];
  deliveries: Delivery[];
}
