// A receiver's deliveries due and waiting for a free attempt: one attempt per subject at a time, so
// that a receiver sees the events about one record in order.
import type { Delivery } from "./types.js";

/**
 * A receiver's deliveries due and waiting for a free attempt, indexed by subject: one attempt per
 * subject at a time, so a subject with one in flight is skipped without scanning its deliveries.
 */
export class Waiting {
  /** Waiting deliveries by subject, each in due order (a Set, so that a forgotten one leaves at once). */
  readonly bySubject = new Map<string, Set<Delivery>>();
  /** Subjects with a waiting delivery and no attempt in flight, in the order they became ready. */
  readonly ready = new Set<string>();
  /** Subjects with an attempt in flight. */
  readonly busy = new Set<string>();
  inFlight = 0;
  size = 0;

  add(delivery: Delivery): void {
    const queue = this.bySubject.get(delivery.subject) ?? new Set<Delivery>();
    if (queue.has(delivery)) return;
    queue.add(delivery);
    this.bySubject.set(delivery.subject, queue);
    this.size++;
    if (!this.busy.has(delivery.subject)) this.ready.add(delivery.subject);
  }

  delete(delivery: Delivery): void {
    const queue = this.bySubject.get(delivery.subject);
    if (!queue?.delete(delivery)) return;
    this.size--;
    if (queue.size === 0) {
      this.bySubject.delete(delivery.subject);
      this.ready.delete(delivery.subject);
    }
  }

  /** Take every waiting delivery out (its receiver was removed); attempts in flight stay counted. */
  clear(): Delivery[] {
    const all = this.all();
    this.bySubject.clear();
    this.ready.clear();
    this.size = 0;
    return all;
  }

  /** Whether a delivery waits here for a free attempt. */
  has(delivery: Delivery): boolean {
    return this.bySubject.get(delivery.subject)?.has(delivery) ?? false;
  }

  /** Every delivery waiting here. */
  all(): Delivery[] {
    return [...this.bySubject.values()].flatMap((queue) => [...queue]);
  }

  /** The delivery take() would give, left in place. */
  peek(): Delivery | undefined {
    const subject = this.ready.values().next().value;
    return subject === undefined ? undefined : this.bySubject.get(subject)?.values().next().value;
  }

  /** The next delivery to attempt (its subject becomes busy), or undefined. */
  take(): Delivery | undefined {
    const subject = this.ready.values().next().value;
    if (subject === undefined) return undefined;
    this.ready.delete(subject);
    const queue = this.bySubject.get(subject);
    const delivery = queue?.values().next().value;
    if (!queue || !delivery) return undefined;
    this.delete(delivery);
    this.busy.add(subject);
    this.inFlight++;
    return delivery;
  }

  /** An attempt about `subject` ended: its next delivery may go. */
  done(subject: string): void {
    this.busy.delete(subject);
    this.inFlight--;
    if (this.bySubject.has(subject)) this.ready.add(subject);
  }
}
