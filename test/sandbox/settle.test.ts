// Deliveries settle, and tests can wait for them: advance() answers once every delivery that fell
// due in its window has had its attempt answered and recorded, settled() does the same for the
// deliveries due now, each attempt within its deadline; and an archive while a delivery is in flight
// leaves that delivery's answer as it came.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RETRIES } from "../../sandbox/deliveries/queue.js";
import { startCollectingReceiver } from "../support/collecting-receiver.js";
import { queueOnClock } from "../support/delivery-queue.js";
import { startRecorder, startTestSandbox, until } from "../support/sandbox.js";

/**
 * A receiver that processes each event at once (records `event transaction_id`), then answers
 * `status(event)` after `holdMs(event)` real milliseconds: its handler runs before its answer
 * reaches the sandbox, as the README's receiver does.
 */
async function slowReceiver(
  holdMs: (event: string) => number,
  status: (event: string) => number = () => 200,
) {
  const processed: string[] = [];
  const receiver = await startCollectingReceiver((request, res) => {
    const body = JSON.parse(request.body) as { event: string; transaction_id: string };
    processed.push(`${body.event} ${body.transaction_id}`);
    setTimeout(() => res.writeHead(status(body.event)).end(), holdMs(body.event));
  });
  return { url: `${receiver.url}/hook`, processed, close: receiver.close };
}

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  // Quick journeys; an attempt unanswered after 1 s counts as timed out.
  sbx = await startTestSandbox({ journeyDelayMs: 20 });
});
afterAll(() => sbx.running.close());

/** A new biometric verification; `lastname` may be a magic value. */
async function start(reference: string, lastname = "Smith"): Promise<string> {
  const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference, lastname } });
  return data?.transaction_id as string;
}

async function downloadPdf(id: string): Promise<void> {
  const pdf = await sbx.client.GET("/api/v2/biometric/pdf/{transaction_id}.pdf", {
    params: { path: { transaction_id: id } },
    parseAs: "arrayBuffer",
  });
  expect(pdf.response.status).toBe(200);
}

describe("the main flow against a receiver that answers 200 ms after processing", () => {
  it("lists created, completed and archived delivered once advance() answers, 50 times in a row", async () => {
    const receiver = await slowReceiver(() => 200);
    const { id: receiverId } = await sbx.control.addReceiver({ url: receiver.url });
    try {
      for (let run = 0; run < 50; run++) {
        const id = await start(`race-${run}`, "sandbox-pass");
        // As the guide did: wait until the receiver has processed completed. Its answer is still
        // 200 ms away when the PDF is downloaded and the clock advanced past the archive.
        await until(() => receiver.processed.includes(`completed ${id}`));
        await downloadPdf(id);
        await sbx.control.advance("PT1H");
        expect(receiver.processed.filter((p) => p.endsWith(` ${id}`))).toEqual([
          `created ${id}`,
          `completed ${id}`,
          `archived ${id}`,
        ]);
        const kept = await sbx.control.deliveries({ subject: id, receiver_id: receiverId });
        expect(
          kept.map((d) => [d.event, d.status, d.attempts.map((a) => a.status)]),
          `run ${run}`,
        ).toEqual([
          ["created", "delivered", [200]],
          ["completed", "delivered", [200]],
          ["archived", "delivered", [200]],
        ]);
      }
    } finally {
      await sbx.control.removeReceiver(receiverId);
      await receiver.close();
    }
  }, 120_000);
});

describe("advance()", () => {
  it("answers once the retries that fall due within the advance have been answered", async () => {
    const refusing = await startRecorder(() => 500);
    const { id: receiverId } = await sbx.control.addReceiver({ url: refusing.url });
    try {
      const id = await start("retried-within");
      await sbx.control.settled();
      await sbx.control.advance("PT5H");
      const [delivery] = await sbx.control.deliveries({ subject: id, receiver_id: receiverId });
      expect(delivery?.attempts.map((a) => a.status)).toEqual(Array(1 + MAX_RETRIES).fill(500));
      expect(delivery?.status).toBe("failed");
    } finally {
      await sbx.control.removeReceiver(receiverId);
      await refusing.close();
    }
  });
});

describe("settled()", () => {
  it("answers once the deliveries due have been answered and recorded", async () => {
    const receiver = await slowReceiver(() => 300);
    const { id: receiverId } = await sbx.control.addReceiver({ url: receiver.url });
    try {
      const ids = [await start("settle-1"), await start("settle-2")];
      const settled = await sbx.control.settled();
      expect(settled.deliveries).toBe(2);
      expect(Date.parse(settled.until)).toBeLessThanOrEqual(Date.parse((await sbx.control.clock()).now));
      for (const id of ids) {
        const kept = await sbx.control.deliveries({ subject: id, receiver_id: receiverId });
        expect(kept.map((d) => [d.status, d.attempts.map((a) => a.status)])).toEqual([["delivered", [200]]]);
      }
      // Nothing due: it answers at once, having waited for none.
      expect((await sbx.control.settled()).deliveries).toBe(0);
    } finally {
      await sbx.control.removeReceiver(receiverId);
      await receiver.close();
    }
  });

  it("is bounded by the attempt's deadline when the receiver never answers", async () => {
    const silent = await startRecorder(() => "hang");
    const { id: receiverId } = await sbx.control.addReceiver({ url: silent.url });
    try {
      const id = await start("never-answered");
      await sbx.control.settled();
      const [delivery] = await sbx.control.deliveries({ subject: id, receiver_id: receiverId });
      expect(delivery?.attempts).toMatchObject([{ status: null, error: "timeout" }]);
      // Retried later, on its schedule: not waited for now.
      expect(delivery?.status).toBe("pending");
      expect(delivery?.next_attempt_at).not.toBeNull();
    } finally {
      await sbx.control.removeReceiver(receiverId);
      await silent.close();
    }
  });
});

describe("an archive while a delivery is in flight", () => {
  it("records the receiver's answer as it came; a refused result is not sent again", async () => {
    // Answers completed with 500, 300 ms after processing it; the rest at once with 200.
    const receiver = await slowReceiver(
      (event) => (event === "completed" ? 300 : 0),
      (event) => (event === "completed" ? 500 : 200),
    );
    const { id: receiverId } = await sbx.control.addReceiver({ url: receiver.url });
    try {
      const id = await start("archived-in-flight");
      await sbx.control.settled();
      await sbx.control.biometric.complete(id, "pass");
      await until(() => receiver.processed.includes(`completed ${id}`));
      await sbx.control.biometric.download(id);
      await sbx.control.advance("PT1H");
      expect((await sbx.control.biometric.get(id)).state).toBe("archived");
      const kept = await sbx.control.deliveries({ subject: id, receiver_id: receiverId });
      expect(kept.map((d) => [d.event, d.status, d.attempts.map((a) => a.status)])).toEqual([
        ["created", "delivered", [200]],
        ["completed", "failed", [500]],
        ["archived", "delivered", [200]],
      ]);
      const completed = kept[1];
      expect(completed?.next_attempt_at).toBeNull();
      expect(completed?.payload).toMatchObject({ phone_number: null, verification: null });
      // Its result was erased: no retry follows, however far the clock goes.
      await sbx.control.advance("PT6H");
      expect(receiver.processed.filter((p) => p === `completed ${id}`)).toHaveLength(1);
    } finally {
      await sbx.control.removeReceiver(receiverId);
      await receiver.close();
    }
  });
});

describe("the queue's settled()", () => {
  it("waits for every delivery due, those not yet taken by an attempt too, and none emitted after it began", async () => {
    const receiver = await slowReceiver(() => 50);
    const stuck = await startRecorder(() => "hang");
    // A deadline far beyond the test's: waiting for the stuck receiver would never end in time.
    const { queue, clock, close } = queueOnClock({ timeoutMs: 600_000 });
    try {
      const { id: slowId } = queue.addReceiver(receiver.url, "events");
      // Ten records: four attempts at a time per receiver, the rest emitted and not yet taken.
      for (let i = 0; i < 10; i++)
        queue.emit(
          "events",
          "biometricWebhook",
          "created",
          `tx-${i}`,
          `{"event":"created","transaction_id":"tx-${i}"}`,
        );
      const settled = queue.settled(clock.now());
      queue.addReceiver(stuck.url, "events");
      queue.emit(
        "events",
        "biometricWebhook",
        "created",
        "tx-late",
        '{"event":"created","transaction_id":"tx-late"}',
      );
      expect(await settled).toEqual({ waited: 10, unsettled: [] });
      const early = queue.list().filter((d) => d.receiver_id === slowId && d.subject !== "tx-late");
      expect(early.map((d) => [d.status, d.attempts.map((a) => a.status)])).toEqual(
        Array(10).fill(["delivered", [200]]),
      );
    } finally {
      await close();
      await receiver.close();
      await stuck.close();
    }
  });
});
