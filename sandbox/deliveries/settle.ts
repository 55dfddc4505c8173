// Waiting for deliveries to settle, so that a test asserts on deliveries without polling or racing:
// a wait holds the deliveries that were due when it began, and ends once each has had its attempt
// answered or timed out (and recorded), retries that fall due by its time included. Each attempt
// has a deadline, and a delivery is attempted at most MAX_RETRIES + 1 times: every wait ends.
import type { Delivery } from "./types.js";

interface Wait {
  /** The virtual time it waits up to: a retry due by then is waited for too. */
  until: number;
  left: Set<Delivery>;
  resolve: (waited: number) => void;
  waited: number;
}

export class SettleWaits {
  /** The waits holding each delivery, so that a change to one costs no scan of every wait. */
  private readonly byDelivery = new Map<Delivery, Set<Wait>>();
  private readonly waits = new Set<Wait>();

  /** `settled` tells whether a delivery needs no more waiting for, up to a virtual time. */
  constructor(private readonly settled: (delivery: Delivery, until: number) => boolean) {}

  /** Resolves, with how many it waited for, once every one of `due` is settled up to `until`. */
  wait(due: Iterable<Delivery>, until: number): Promise<number> {
    const left = new Set([...due].filter((delivery) => !this.settled(delivery, until)));
    if (left.size === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const wait: Wait = { until, left, resolve, waited: left.size };
      this.waits.add(wait);
      for (const delivery of left) {
        const holding = this.byDelivery.get(delivery);
        if (holding) holding.add(wait);
        else this.byDelivery.set(delivery, new Set([wait]));
      }
    });
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
    for (const wait of [...this.waits]) for (const delivery of [...wait.left]) this.release(wait, delivery);
  }

  private release(wait: Wait, delivery: Delivery): void {
    wait.left.delete(delivery);
    const holding = this.byDelivery.get(delivery);
    holding?.delete(wait);
    if (holding?.size === 0) this.byDelivery.delete(delivery);
    if (wait.left.size > 0) return;
    this.waits.delete(wait);
    wait.resolve(wait.waited);
  }
}
