// A delivery queue on a running virtual clock, wired as the sandbox wires them, for the queue's tests.
import { VirtualClock } from "../../sandbox/clock/clock.js";
import { DeliveryQueue, type DeliveryOptions } from "../../sandbox/deliveries/queue.js";

/** A queue whose due timers the clock runs; `close()` stops both (and the delivery thread). */
export function queueOnClock(options: Omit<DeliveryOptions, "clock"> = {}): {
  queue: DeliveryQueue;
  clock: VirtualClock;
  close(): Promise<void>;
} {
  const clock = new VirtualClock();
  const queue = new DeliveryQueue({ ...options, clock });
  clock.onTimer((t) => queue.due(t.ref));
  return {
    queue,
    clock,
    close: async () => {
      clock.stop();
      await queue.close();
    },
  };
}
