// Waiting for deliveries to settle, so that a test asserts on deliveries without polling or racing:
// a wait holds the deliveries that were due when it began, and ends once each has had its attempt
// answered or timed out (and recorded), retries that fall due by its time included.
//
// A wait is bounded in real time, whatever the receivers do. Once an attempt to a receiver times out,
// the wait holds none of that receiver's deliveries any more: a receiver that hangs holds it one
// attempt deadline, not one per retry, and not one per delivery queued behind it. And it ends at
// the latest after `maxMs` (a backlog of answered attempts never holds it longer). The deliveries it
// let go, or still held, that are pending when it answers are its `unsettled`: they go on in the
// background, on their schedule. Both are told by what the attempts recorded, not by a race of
// timers, so that a test of them is deterministic. While it waits, its timer keeps the process
// alive: an awaited wait answers even when nothing else (no server, no unref'd timer) would.
import type { Delivery } from "./types.js";

/** How a wait ended: how many it waited for, and those still pending when it answered. */
export interface SettleResult {
  waited: number;
  unsettled: Delivery[];
}

/**
 * The longest a wait lasts for an attempt deadline of `timeoutMs`: three deadlines, never less than
 * 30 s, so that a backlog of answered attempts holds no advance longer.
 */
export const settleMaxMs = (timeoutMs: number): number => Math.max(3 * timeoutMs, 30_000);

/** A wait's bound in real time. */
export interface SettleBounds {
  /** It ends at the latest this many milliseconds after it began. */
  maxMs: number;
}

interface Wait {
  /** The virtual time it waits up to: a retry due by then is waited for too. */
  until: number;
  left: Set<Delivery>;
  resolve: (result: SettleResult) => void;
  waited: number;
  /** Deliveries let go because an attempt to their receiver timed out; listed if still pending. */
  letGo: Delivery[];
  deadline: NodeJS.Timeout;
}

export class SettleWaits {
  /** The waits holding each delivery, so that a change to one costs no scan of every wait. */
  private readonly byDelivery = new Map<Delivery, Set<Wait>>();
  private readonly waits = new Set<Wait>();

  /**
   * `settled` tells whether a delivery needs no more waiting for, up to a virtual time; `kept`,
   * whether it is still kept (one forgotten since it was let go is not listed).
   */
  constructor(
    private readonly settled: (delivery: Delivery, until: number) => boolean,
    private readonly bounds: SettleBounds,
    private readonly kept: (delivery: Delivery) => boolean = () => true,
  ) {}

  /** Resolves once every one of `due` is settled up to `until`, or a bound is reached. */
  wait(due: Iterable<Delivery>, until: number): Promise<SettleResult> {
    const left = new Set([...due].filter((delivery) => !this.settled(delivery, until)));
    if (left.size === 0) return Promise.resolve({ waited: 0, unsettled: [] });
    return new Promise((resolve) => {
      const wait: Wait = {
        until,
        left,
        resolve,
        waited: left.size,
        letGo: [],
        deadline: setTimeout(() => this.end(wait), this.bounds.maxMs),
      };
      this.waits.add(wait);
      for (const delivery of left) {
        const holding = this.byDelivery.get(delivery);
        if (holding) holding.add(wait);
        else this.byDelivery.set(delivery, new Set([wait]));
      }
    });
  }

  /**
   * An attempt of a delivery timed out: the waits holding it let go of every delivery to its
   * receiver (its retries, and those queued behind it, would each hold them another deadline).
   */
  timedOut(delivery: Delivery): void {
    for (const wait of [...(this.byDelivery.get(delivery) ?? [])]) {
      for (const held of [...wait.left]) {
        if (held.receiver_id !== delivery.receiver_id) continue;
        wait.letGo.push(held);
        this.release(wait, held);
      }
    }
  }

  /** A delivery's attempt ended or its status changed: the waits holding it look at it again. */
  changed(delivery: Delivery): void {
    for (const wait of this.byDelivery.get(delivery) ?? []) {
      if (this.settled(delivery, wait.until)) this.release(wait, delivery);
    }
  }

  /** A delivery is no longer kept: nothing more happens to it that a wait could see. */
  gone(delivery: Delivery): void {
    for (const wait of this.byDelivery.get(delivery) ?? []) this.release(wait, delivery);
  }

  /** End every wait (the queue is closing: no attempt will end any more). */
  releaseAll(): void {
    for (const wait of [...this.waits]) this.end(wait);
  }

  private release(wait: Wait, delivery: Delivery): void {
    wait.left.delete(delivery);
    this.unhold(wait, delivery);
    if (wait.left.size === 0) this.end(wait);
  }

  private unhold(wait: Wait, delivery: Delivery): void {
    const holding = this.byDelivery.get(delivery);
    holding?.delete(wait);
    if (holding?.size === 0) this.byDelivery.delete(delivery);
  }

  /** Answer a wait with what it still holds, and stop holding it. */
  private end(wait: Wait): void {
    if (!this.waits.delete(wait)) return;
    clearTimeout(wait.deadline);
    const held = [...wait.left];
    for (const delivery of held) this.unhold(wait, delivery);
    wait.left.clear();
    const letGo = wait.letGo.filter((delivery) => delivery.status === "pending" && this.kept(delivery));
    wait.resolve({ waited: wait.waited, unsettled: [...letGo, ...held] });
  }
}
