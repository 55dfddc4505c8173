// The virtual clock's pending timers as a binary min-heap on (at, id): adding or taking one costs
// O(log n), so one advance that fires many timers, each scheduling more, stays linear-logarithmic
// (docs/decisions/sandbox.md).
import type { Timer } from "./timer.js";

const before = (a: Timer, b: Timer): boolean => a.at < b.at || (a.at === b.at && a.id < b.id);

/** Timers ordered by time, then by id (the order they were scheduled in). */
export class TimerHeap {
  private items: Timer[] = [];

  get size(): number {
    return this.items.length;
  }

  /** The earliest timer, left in place. */
  peek(): Timer | undefined {
    return this.items[0];
  }

  push(timer: Timer): void {
    const items = this.items;
    items.push(timer);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(timer, items[parent] as Timer)) break;
      items[i] = items[parent] as Timer;
      i = parent;
    }
    items[i] = timer;
  }

  /** Take the earliest timer. */
  pop(): Timer | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child =
        right < items.length && before(items[right] as Timer, items[left] as Timer) ? right : left;
      if (!before(items[child] as Timer, last)) break;
      items[i] = items[child] as Timer;
      i = child;
    }
    items[i] = last;
    return top;
  }

  /** Replace the contents with `timers` (any order). */
  reset(timers: Iterable<Timer>): void {
    this.items = [];
    for (const t of timers) this.push(t);
  }

  /** Keep only the timers `keep` accepts. */
  retain(keep: (timer: Timer) => boolean): void {
    this.reset(this.items.filter(keep));
  }

  /** Every timer in firing order (a sorted copy). */
  sorted(): Timer[] {
    return [...this.items].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }
}
