// The delivery queue's memory is bounded: past 10,000 deliveries the oldest goes, even a pending one;
// closing it ends every POST in flight.
import { once } from "node:events";
import { type AddressInfo, createServer, type Socket } from "node:net";
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

describe("DeliveryQueue.close", () => {
  it("aborts a Test button POST in flight, so no request or timer outlives the sandbox", async () => {
    // A receiver that takes the request and never answers.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.on("error", () => undefined);
    });
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    const clock = new VirtualClock();
    clock.stop();
    // A deadline far beyond the test's own timeout: only close() can end the POST in time.
    const queue = new DeliveryQueue({ clock, timeoutMs: 600_000 });
    const receiver = queue.addReceiver(`http://127.0.0.1:${port}/hook`, "events");
    const result = queue.test(receiver, "{}");
    while (sockets.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    queue.close();
    expect(await result).toMatchObject({ ok: false, status: null });
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
});
