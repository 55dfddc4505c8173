// The delivery queue's memory is bounded: past 10,000 deliveries the oldest goes, even a pending one.
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sandbox/clock.js";
import { DeliveryQueue } from "../../sandbox/deliveries.js";

describe("DeliveryQueue", () => {
  it("keeps the last 10,000 deliveries, dropping the oldest first", () => {
    const clock = new VirtualClock();
    // Stopped: nothing is sent, the deliveries all stay pending.
    clock.stop();
    const queue = new DeliveryQueue({ clock });
    queue.addReceiver("http://127.0.0.1:9/hook", "events");
    for (let i = 0; i < 10_005; i++) queue.emit("events", "biometricWebhook", "created", `t-${i}`, "{}");
    expect(queue.deliveries.size).toBe(10_000);
    const subjects = [...queue.deliveries.values()].map((d) => d.subject);
    expect(subjects[0]).toBe("t-5");
    expect(subjects.at(-1)).toBe("t-10004");
    expect([...queue.deliveries.values()].every((d) => d.status === "pending")).toBe(true);
  });
});
