// The delivery queue's memory is bounded: past 10,000 deliveries the oldest goes, even a pending one;
// closing it ends every POST in flight.
import { once } from "node:events";
import { type AddressInfo, createServer, type Socket } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sandbox/clock/clock.js";
import { ByteBudget, jsonBytes, TIMER_BYTES } from "../../sandbox/state/byte-budget.js";
import {
  ATTEMPT_BYTES,
  type Delivery,
  DeliveryQueue,
  MAX_RECEIVERS,
  MAX_RETRIES,
} from "../../sandbox/deliveries/queue.js";
import { queueOnClock } from "../support/delivery-queue.js";
import { startCollectingReceiver } from "../support/collecting-receiver.js";
import { startRecorder, until } from "../support/sandbox.js";

describe("DeliveryQueue", () => {
  it("keeps the last 10,000 deliveries, dropping the oldest first", async () => {
    const clock = new VirtualClock();
    // Stopped, no retry falls due; first attempts go to a port nothing listens on, and none has
    // ended when the checks below run (they run in the same turn as the emits).
    clock.stop();
    const queue = new DeliveryQueue({ clock });
    queue.addReceiver("http://127.0.0.1:9/hook", "events");
    for (let i = 0; i < 10_005; i++) queue.emit("events", "biometricWebhook", "created", `t-${i}`, "{}");
    expect(queue.size).toBe(10_000);
    const subjects = queue.list().map((d) => d.subject);
    expect(subjects[0]).toBe("t-5");
    expect(subjects.at(-1)).toBe("t-10004");
    expect(queue.list().every((d) => d.status === "pending")).toBe(true);
    await queue.close();
  });
});

describe("DeliveryQueue's byte count", () => {
  it("counts each delivery as its JSON exactly, with room for its attempts and its timer", async () => {
    const clock = new VirtualClock();
    clock.stop();
    const budget = new ByteBudget(Infinity);
    const queue = new DeliveryQueue({ clock, budget });
    for (let i = 0; i < 3; i++) {
      queue.addReceiver(`http://127.0.0.1:9/events-${i}`, "events");
      queue.addReceiver(`http://127.0.0.1:9/workflow-${i}`, "workflow");
    }
    const body = JSON.stringify({ name: 'Zoë "quoted" \\ \u0001 🙂', n: [1, 2, 3] });
    queue.emit("events", "biometricWebhook", "created", "t-1", body);
    queue.emit("workflow", "workflowCase", "case.completed", "c-1", body, {
      "X-Workflow-Event-Type": "case.completed",
    });
    const reserve = (MAX_RETRIES + 1) * ATTEMPT_BYTES + TIMER_BYTES;
    const kept = queue.list();
    expect(kept).toHaveLength(6);
    expect(budget.used).toBe(kept.reduce((sum, d) => sum + jsonBytes(d) + reserve, 0));
    await queue.close();
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
    await queue.close();
    expect(await result).toMatchObject({ ok: false, status: null });
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
});

describe("DeliveryQueue's waiting deliveries", () => {
  it("go one at a time per subject, in order, at most four per receiver, all of them; replays of one delivery too", async () => {
    const open = new Map<string, number>();
    let inFlight = 0;
    let most = 0;
    const got: { subject: string; n: number }[] = [];
    const receiver = await startCollectingReceiver((request, res) => {
      const body = JSON.parse(request.body) as { subject: string; n: number };
      open.set(body.subject, (open.get(body.subject) ?? 0) + 1);
      expect(open.get(body.subject)).toBe(1);
      most = Math.max(most, ++inFlight);
      got.push(body);
      setTimeout(() => {
        open.set(body.subject, (open.get(body.subject) ?? 1) - 1);
        inFlight--;
        res.end();
      }, 2);
    });
    const { queue, clock, close } = queueOnClock();
    try {
      queue.addReceiver(`${receiver.url}/hook`, "events");
      const sent: { subject: string; n: number }[] = [];
      for (let n = 0; n < 60; n++) {
        const subject = `s-${n % 7}`;
        sent.push({ subject, n });
        queue.emit("events", "biometricWebhook", "created", subject, JSON.stringify({ subject, n }));
      }
      const [first] = queue.list();
      for (let i = 0; i < 40; i++) {
        queue.replay(first as NonNullable<typeof first>);
        sent.push({ subject: "s-0", n: 0 });
      }
      clock.run();
      await receiver.arrived(sent.length);
      for (const subject of new Set(sent.map((s) => s.subject)))
        expect(got.filter((g) => g.subject === subject)).toEqual(sent.filter((s) => s.subject === subject));
      expect(most).toBeLessThanOrEqual(4);
      expect(most).toBeGreaterThan(1);
    } finally {
      await close();
      await receiver.close();
    }
  });
});

describe("an event to many receivers", () => {
  it("makes a receiver's delivery only when it is attempted or asked for; a removed receiver's untried ones fail at once", async () => {
    const stuck = await startRecorder(() => "hang");
    let made = 0;
    const { queue, close } = queueOnClock({ timeoutMs: 60_000, maxKept: 1000, observe: () => made++ });
    try {
      const receivers = Array.from({ length: MAX_RECEIVERS }, (_, i) =>
        queue.addReceiver(`${stuck.url}/hook-${i}`, "events"),
      );
      for (let i = 0; i < 100; i++) queue.emit("events", "biometricWebhook", "created", `tx-${i}`, "{}");
      expect(queue.size).toBe(1000);
      // Four attempts in flight per receiver, each made as it went; the 9,600 others none.
      expect(made).toBe(4 * MAX_RECEIVERS);
      await stuck.arrived(4 * MAX_RECEIVERS);
      const gone = receivers[0] as (typeof receivers)[0];
      queue.removeReceiver(gone.id);
      // Its four in flight were about the first events, forgotten since; the ten kept were never
      // tried, and now never will be.
      expect(made).toBe(4 * MAX_RECEIVERS + 10);
      const its = queue.list().filter((d) => d.receiver_id === gone.id);
      expect(its.map((d) => [d.status, d.attempts.length])).toEqual(Array(10).fill(["failed", 0]));
      // Asked for, all are made: the 400 attempted, and the 1,000 kept.
      expect(made).toBe(4 * MAX_RECEIVERS + 1000);
    } finally {
      await close();
      await stuck.close();
    }
  });
});

describe("a replay", () => {
  it("goes before an event about the same record emitted after it, and after those emitted before", async () => {
    const got = await startRecorder();
    const { queue, clock, close } = queueOnClock();
    try {
      queue.addReceiver(`${got.url}/hook`, "events");
      queue.emit("events", "biometricWebhook", "created", "s", '{"n":0}');
      await until(() => queue.list()[0]?.status === "delivered");
      queue.replay(queue.list()[0] as Delivery);
      queue.emit("events", "biometricWebhook", "completed", "s", '{"n":1}');
      clock.run();
      await got.arrived(3);
      expect(got.received.map((r) => r.body)).toEqual(['{"n":0}', '{"n":0}', '{"n":1}']);
    } finally {
      await close();
      await got.close();
    }
  });
});

describe("a replay behind untried deliveries", () => {
  it("goes after the deliveries about its record emitted before it and not yet tried", async () => {
    const got = await startRecorder();
    const { queue, close } = queueOnClock();
    try {
      queue.addReceiver(`${got.url}/hook`, "events");
      // Four records in flight (the most per receiver): the fifth event, about the first, waits untried.
      for (const [n, subject] of ["a", "b", "c", "d", "a"].entries())
        queue.emit("events", "biometricWebhook", "created", subject, JSON.stringify({ n }));
      queue.replay(queue.list()[0] as Delivery);
      await got.arrived(6);
      const aboutA = got.received.map((r) => JSON.parse(r.body).n).filter((n) => n === 0 || n === 4);
      expect(aboutA).toEqual([0, 4, 0]);
    } finally {
      await close();
      await got.close();
    }
  });
});

describe("emits and replays about one record", () => {
  it("reach every receiver in the order they were made (property)", async () => {
    const got = await startRecorder();
    const { queue, close } = queueOnClock();
    const receivers = [0, 1, 2].map((i) => queue.addReceiver(`${got.url}/hook-${i}`, "events"));
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              // Emits three times as often: four records busy at once leave later ones untried.
              { arbitrary: fc.record({ subject: fc.integer({ min: 0, max: 3 }) }), weight: 3 },
              { arbitrary: fc.record({ replay: fc.nat() }), weight: 1 },
            ),
            { minLength: 1, maxLength: 30 },
          ),
          async (steps) => {
            run++;
            const before = got.received.length;
            // What each receiver must get, per record, in order: the n of each body.
            const expected = new Map<string, number[]>();
            const expect1 = (receiver: string, subject: string, n: number) => {
              const key = `${receiver} ${subject}`;
              expected.set(key, [...(expected.get(key) ?? []), n]);
            };
            const emitted: { subject: string; n: number }[] = [];
            for (const step of steps) {
              if ("subject" in step) {
                const subject = `r${run}-s${step.subject}`;
                const n = emitted.length;
                emitted.push({ subject, n });
                queue.emit("events", "biometricWebhook", "created", subject, JSON.stringify({ n }));
                for (const r of receivers) expect1(r.id, subject, n);
              } else if (emitted.length > 0) {
                const { subject, n } = emitted[step.replay % emitted.length] as {
                  subject: string;
                  n: number;
                };
                const r = receivers[step.replay % receivers.length] as (typeof receivers)[0];
                const original = queue
                  .list()
                  .find(
                    (d) =>
                      d.receiver_id === r.id && d.subject === subject && d.body === JSON.stringify({ n }),
                  );
                queue.replay(original as Delivery);
                expect1(r.id, subject, n);
              }
            }
            const total = [...expected.values()].reduce((sum, ns) => sum + ns.length, 0);
            await got.arrived(before + total);
            const seen = new Map<string, number[]>();
            for (const r of got.received.slice(before)) {
              const receiver = receivers[Number(r.path.split("-").at(-1))]?.id as string;
              const subject = queue
                .list()
                .find((d) => d.body === r.body && d.subject.startsWith(`r${run}-`))?.subject;
              const key = `${receiver} ${subject}`;
              seen.set(key, [...(seen.get(key) ?? []), (JSON.parse(r.body) as { n: number }).n]);
            }
            expect(seen).toEqual(expected);
          },
        ),
        { numRuns: 100 },
      );
    } finally {
      await close();
      await got.close();
    }
  }, 60_000);
});

describe("a removed receiver", () => {
  it("fails at once its deliveries waiting for a free attempt; the one in flight, once answered", async () => {
    const stuck = await startRecorder(() => "hang");
    const { queue, close } = queueOnClock({ timeoutMs: 60_000 });
    try {
      const r = queue.addReceiver(`${stuck.url}/hook`, "events");
      // One record: one attempt in flight, the other two waiting behind it.
      for (let n = 0; n < 3; n++) queue.emit("events", "biometricWebhook", "created", "s", `{"n":${n}}`);
      await stuck.arrived(1);
      queue.removeReceiver(r.id);
      expect(queue.list().map((d) => [d.status, d.attempts.length])).toEqual([
        ["pending", 0],
        ["failed", 0],
        ["failed", 0],
      ]);
    } finally {
      await close();
      await stuck.close();
    }
  });
});
