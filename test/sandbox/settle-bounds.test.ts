// The virtual clock never waits on a receiver: an advance (and a settle) answers within one attempt
// deadline whatever its receivers do, listing what is still in flight; a receiver that answers,
// even slowly, has its answers recorded; a reset waits for the advances asked before it; close()
// ends the waits. Every timing case is made by a handler the test holds, never by a sleep.
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { createSandbox, type InProcessSandbox, type ReceiverHandler } from "../../sandbox/index.js";
import { MAX_RETRIES } from "../../sandbox/deliveries/queue.js";
import { createClient } from "../../src/index.js";
import { queueOnClock } from "../support/delivery-queue.js";
import { startRecorder, until } from "../support/sandbox.js";

const KEY = { key: "k-bounds", secret: "s-bounds" };
let sandbox: InProcessSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A sandbox in this process; `start(lastname)` creates a biometric verification in it. */
async function inProcess(deliveryTimeoutMs: number) {
  sandbox = await createSandbox({ ...KEY, deliveryTimeoutMs });
  const current = sandbox;
  const idv = createClient({
    baseUrl: current.url,
    apiKey: KEY.key,
    secret: KEY.secret,
    fetch: current.fetch,
  });
  const start = async (reference: string, lastname = "Smith") => {
    const { data } = await idv.POST("/api/v2/send_text", { body: { reference, lastname } });
    return data?.transaction_id as string;
  };
  return { sandbox: current, start };
}

/** A handler that never answers, counting the deliveries it got. */
function hanging(): { handler: ReceiverHandler; calls: () => number } {
  let calls = 0;
  return {
    handler: () => {
      calls++;
      return new Promise<Response>(() => {});
    },
    calls: () => calls,
  };
}

/** A handler whose answers the test gives: each delivery waits until `release()`. */
function held(status: number): { handler: ReceiverHandler; got: Promise<void>; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived = () => {};
  const got = new Promise<void>((resolve) => (arrived = resolve));
  const handler: ReceiverHandler = async () => {
    arrived();
    await gate;
    return new Response(null, { status });
  };
  return { handler, got, release };
}

describe("an advance with a receiver that never answers", () => {
  it("answers after one deadline, listing the hung receiver's deliveries; a fast receiver's are delivered", async () => {
    const { sandbox, start } = await inProcess(300);
    const hung = hanging();
    const hungReceiver = await sandbox.receivers.add(hung.handler);
    const fast = await sandbox.receivers.add(() => new Response(null, { status: 204 }));
    for (const n of [1, 2, 3]) await start(`hung-${n}`, "sandbox-pass");

    const advanced = await sandbox.control.advance("PT10M");

    const all = await sandbox.control.deliveries();
    const ofHung = all.filter((d) => d.receiver_id === hungReceiver.id);
    const ofFast = all.filter((d) => d.receiver_id === fast.id);
    expect(ofFast.length).toBeGreaterThan(0);
    expect(ofFast.every((d) => d.status === "delivered")).toBe(true);
    expect(advanced.in_flight.deliveries.some((id) => ofFast.some((d) => d.id === id))).toBe(false);
    // Each of the hung receiver's deliveries is pending and listed: none was waited for retry by retry.
    expect(ofHung.length).toBeGreaterThan(0);
    expect(ofHung.every((d) => d.status === "pending")).toBe(true);
    expect(new Set(advanced.in_flight.deliveries)).toEqual(new Set(ofHung.map((d) => d.id)));
    expect(advanced.in_flight.count).toBe(ofHung.length);
    expect(hung.calls()).toBeLessThan(ofHung.length * (1 + MAX_RETRIES));
  });

  it("settled() is bounded the same way and lists the delivery, whose retry goes on", async () => {
    const { sandbox, start } = await inProcess(300);
    const hung = hanging();
    await sandbox.receivers.add(hung.handler);
    await start("hung-settle");
    const settled = await sandbox.control.settled();
    expect(settled.deliveries).toBe(1);
    const [delivery] = await sandbox.control.deliveries();
    expect(settled.in_flight).toEqual({ count: 1, deliveries: [delivery?.id] });
    expect(delivery?.attempts).toMatchObject([{ status: null, error: "timeout" }]);
    expect(delivery?.status).toBe("pending");
  });
});

describe("a receiver that answers slowly", () => {
  it("has every answer recorded when advance() returns, the retries in the window too", async () => {
    const { sandbox, start } = await inProcess(2000);
    let calls = 0;
    const receiver = await sandbox.receivers.add(async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return new Response(null, { status: 500 });
    });
    const id = await start("slow-500");
    const advanced = await sandbox.control.advance("PT6H");
    expect(advanced.in_flight).toEqual({ count: 0, deliveries: [] });
    const [delivery] = await sandbox.control.deliveries({ subject: id, receiver_id: receiver.id });
    expect(delivery?.attempts.map((a) => a.status)).toEqual(Array(1 + MAX_RETRIES).fill(500));
    expect(delivery?.status).toBe("failed");
    expect(calls).toBe(1 + MAX_RETRIES);
  });
});

describe("a reset asked for during an advance", () => {
  it("runs once the advance has answered with its deliveries made", async () => {
    const { sandbox } = await inProcess(60_000);
    const receiver = held(200);
    await sandbox.receivers.add(receiver.handler);
    await sandbox.control.trigger("pending");
    const order: string[] = [];
    const advance = sandbox.control.advance("PT1M").then((answer) => {
      order.push("advance");
      return answer;
    });
    await receiver.got;
    const reset = sandbox.control.reset().then(() => order.push("reset"));
    // Nothing is forgotten while the advance waits for its delivery.
    expect((await sandbox.control.deliveries()).length).toBe(1);
    receiver.release();
    const answered = await advance;
    expect(answered.in_flight.count).toBe(0);
    await reset;
    expect(order).toEqual(["advance", "reset"]);
    expect(await sandbox.control.deliveries()).toEqual([]);
  });
});

describe("close() with deliveries in flight", () => {
  it("answers, and so does the advance waiting on them", async () => {
    const { sandbox } = await inProcess(600_000);
    const receiver = held(200);
    await sandbox.receivers.add(receiver.handler);
    await sandbox.control.trigger("pending");
    const advance = sandbox.control.advance("PT1M");
    await receiver.got;
    await sandbox.close();
    // Its in-process receivers are forgotten at close: the delivery in flight failed with them.
    const answered = await advance;
    expect(answered.in_flight).toEqual({ count: 0, deliveries: [] });
  });
});

/** Emit a created event about `subject` to the queue's events receivers. */
function emitCreated(queue: ReturnType<typeof queueOnClock>["queue"], subject: string): void {
  queue.emit(
    "events",
    "biometricWebhook",
    "created",
    subject,
    JSON.stringify({ event: "created", transaction_id: subject }),
  );
}

describe("the queue's wait", () => {
  it("ends at its bound in real time however long the attempts take, listing them", async () => {
    const silent = await startRecorder(() => "hang");
    // An attempt deadline far beyond the bound: only the bound can end the wait.
    const { queue, clock, close } = queueOnClock({ timeoutMs: 600_000, settleMaxMs: 50 });
    try {
      queue.addReceiver(silent.url, "events");
      emitCreated(queue, "tx-1");
      const settled = await queue.settled(clock.now());
      expect(settled.waited).toBe(1);
      expect(settled.unsettled.map((d) => d.subject)).toEqual(["tx-1"]);
      expect(settled.unsettled[0]?.status).toBe("pending");
    } finally {
      await close();
      await silent.close();
    }
  });
});

describe("a delivery let go and then forgotten", () => {
  it("is not listed in the answer: it is no longer kept", async () => {
    const silent = await startRecorder(() => "hang");
    const refusing = await startRecorder(() => 500);
    // Two deliveries kept at most: the second event's forget the first's.
    const { queue, clock, close } = queueOnClock({ timeoutMs: 100, maxKept: 2 });
    try {
      const hung = queue.addReceiver(silent.url, "events");
      queue.addReceiver(refusing.url, "events");
      emitCreated(queue, "tx-1");
      // Up to a day ahead: the refused delivery's retry is due by then, so the wait stays open for it.
      const settled = queue.settled(clock.now() + 86_400_000);
      await until(() => queue.list().some((d) => d.receiver_id === hung.id && d.attempts.length > 0));
      emitCreated(queue, "tx-2");
      const answer = await settled;
      expect(answer.waited).toBe(2);
      expect(answer.unsettled).toEqual([]);
    } finally {
      await close();
      await silent.close();
      await refusing.close();
    }
  });
});

describe("a delivery forgotten while its attempt is in flight", () => {
  it("is not waited for: nobody can see it any more", async () => {
    const refusing = await startRecorder(() => 500);
    // One delivery kept at most: the second event's forgets the first's, whose attempt is on its way.
    const { queue, clock, close } = queueOnClock({ timeoutMs: 10_000, maxKept: 1 });
    try {
      queue.addReceiver(refusing.url, "events");
      emitCreated(queue, "tx-1");
      const [first] = queue.list();
      emitCreated(queue, "tx-2");
      expect(queue.get(first?.id ?? "")).toBeUndefined();
      const settled = await queue.settled(clock.now());
      expect(settled.waited).toBe(1);
      expect(settled.unsettled).toEqual([]);
    } finally {
      await close();
      await refusing.close();
    }
  });
});

describe("the process of an in-process sandbox", () => {
  const run = (mode: string) =>
    spawnSync(process.execPath, ["--import", "tsx", fromRoot("test/support/awaited-advance.ts"), mode], {
      cwd: fromRoot(),
      encoding: "utf8",
      // Far beyond what either takes: a process that never exits fails here, not by hanging the suite.
      timeout: 50_000,
    });

  it("stays up while an advance is awaited, until it answers with its retries recorded", () => {
    const child = run("awaited");
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const answer = JSON.parse(child.stdout) as {
      in_flight: number;
      now: string;
      deliveries: { status: string; attempts: number; next: string | null }[];
    };
    expect(answer.in_flight).toBe(0);
    expect(answer.deliveries.length).toBeGreaterThan(0);
    // Answered 500 each time: retried through the six hours, each retry due by then recorded.
    for (const d of answer.deliveries) {
      if (d.status === "failed") expect(d.attempts).toBe(1 + MAX_RETRIES);
      else expect(Date.parse(d.next ?? "")).toBeGreaterThan(Date.parse(answer.now));
    }
    expect(answer.deliveries[0]).toMatchObject({ status: "failed", attempts: 1 + MAX_RETRIES });
  });

  it("exits by itself when nothing awaits the sandbox", () => {
    const child = run("unawaited");
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(child.stdout).toBe("");
  });
});
