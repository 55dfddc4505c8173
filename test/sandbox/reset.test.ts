// POST /_sandbox/reset and the control client's reset(): records, deliveries, timers and the clock's
// offset forgotten (receivers kept unless asked), an attempt in flight not recorded into the fresh
// state, the --state file saved empty; then a fresh journey runs as in a new sandbox.
import { mkdtempSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxControlError } from "../../sandbox/index.js";
import { readState } from "../../sandbox/state/file.js";
import { startCollectingReceiver } from "../support/collecting-receiver.js";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

let receiver: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  receiver = await startRecorder();
});
afterAll(() => receiver.close());

/** A receiver that holds each request's answer until told: `arrived` resolves with the first. */
async function heldReceiver() {
  let arrived!: (res: ServerResponse) => void;
  const first = new Promise<ServerResponse>((resolve) => (arrived = resolve));
  const receiver = await startCollectingReceiver((_, res) => arrived(res));
  return { url: receiver.url, first, close: receiver.close };
}

describe("reset", () => {
  it("forgets records, deliveries and the clock's offset, keeps receivers; a fresh journey then works", async () => {
    const sbx = await startTestSandbox();
    try {
      const { control, client } = sbx;
      const kept = await control.addReceiver({ url: receiver.url });
      const { data } = await client.POST("/api/v2/send_text", { body: { reference: "before" } });
      const old = data?.transaction_id as string;
      await control.advance("P1D");
      await control.settled();
      expect((await control.deliveries()).length).toBeGreaterThan(0);
      expect((await control.clock()).offset_ms).toBeGreaterThan(0);

      const done = await control.reset();
      expect(done.receivers.map((r) => r.id)).toEqual([kept.id]);
      expect(done.clock.offset_ms).toBe(0);
      expect(await control.deliveries()).toEqual([]);
      const gone = await control.biometric.get(old).then(
        () => 0,
        (e: unknown) => (e as SandboxControlError).status,
      );
      expect(gone).toBe(404);
      expect(
        (
          await client.GET("/api/v2/biometric/pdf/{transaction_id}.pdf", {
            params: { path: { transaction_id: old } },
            parseAs: "arrayBuffer",
          })
        ).response.status,
      ).toBe(404);
      // No timer of the old verification is left: a week on, nothing about it is sent.
      await control.advance("P8D");
      await control.settled();
      expect(await control.deliveries()).toEqual([]);

      // A fresh journey: created, completed, delivered to the receiver kept.
      receiver.received.length = 0;
      const fresh = await client.POST("/api/v2/send_text", { body: { reference: "after" } });
      const id = fresh.data?.transaction_id as string;
      await control.biometric.complete(id, "pass");
      await control.settled();
      const events = (await control.deliveries({ subject: id })).map((d) => [d.event, d.status]);
      expect(events).toEqual([
        ["created", "delivered"],
        ["completed", "delivered"],
      ]);
      expect(receiver.received.map((r) => JSON.parse(r.body).event)).toEqual(["created", "completed"]);

      // Asked, the receivers go too.
      const all = await control.reset({ receivers: true });
      expect(all.receivers).toEqual([]);
      expect(await control.receivers()).toEqual([]);
    } finally {
      await sbx.running.close();
    }
  });

  it("an attempt in flight at the reset records nothing in the fresh state, and the reset waits for it", async () => {
    const held = await heldReceiver();
    const sbx = await startTestSandbox();
    try {
      const sandbox = sbx.running.sandbox;
      await sbx.control.addReceiver({ url: held.url });
      await sbx.control.trigger("pending");
      const res = await held.first;
      let resetDone = false;
      const reset = sandbox.reset().then(() => (resetDone = true));
      // Forgotten at once (the clock was idle): the reset now waits for the attempt in flight.
      expect(sandbox.queue.list()).toEqual([]);
      expect(resetDone).toBe(false);
      // The receiver refuses it: a retry would be scheduled, were the answer recorded.
      res.writeHead(500).end();
      await reset;
      expect(sandbox.clock.pending()).toEqual([]);
      expect(sandbox.queue.list()).toEqual([]);
      expect((await sbx.control.settled()).deliveries).toBe(0);
    } finally {
      await sbx.running.close();
      await held.close();
    }
  });

  it("with --state, the file holds the empty state when the reset answers", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sbx-reset-")), "state.json");
    const sbx = await startTestSandbox({ stateFile: file });
    try {
      await sbx.control.addReceiver({ url: receiver.url });
      await sbx.control.trigger("completed");
      await sbx.control.advance("PT1H");
      await sbx.control.reset();
      const saved = readState(file);
      expect(saved?.biometric).toEqual([]);
      expect(saved?.deliveries).toEqual([]);
      expect(saved?.timers).toEqual([]);
      expect(saved?.clock_offset_ms).toBe(0);
      expect(saved?.receivers.length).toBe(1);
    } finally {
      await sbx.running.close();
    }
  });

  it("takes no body at all, and advances asked for before it finish first", async () => {
    const sbx = await startTestSandbox();
    try {
      await sbx.control.advance("P2D");
      const answer = await fetch(`${sbx.running.url}/_sandbox/reset`, { method: "POST" });
      expect(answer.status).toBe(200);
      expect((await answer.json()).clock.offset_ms).toBe(0);
      // In process, in the order asked: the advance runs, then the reset; an advance after it counts.
      const sandbox = sbx.running.sandbox;
      const day = 24 * 3_600_000;
      await Promise.all([sandbox.advance(day), sandbox.reset(), sandbox.advance(day)]);
      expect(sandbox.clock.offsetMs).toBe(day);
    } finally {
      await sbx.running.close();
    }
  });

  it("refuses a body member it does not take", async () => {
    const sbx = await startTestSandbox();
    try {
      const answer = await fetch(`${sbx.running.url}/_sandbox/reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ records: false }),
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error_code: "BAD_REQUEST" });
    } finally {
      await sbx.running.close();
    }
  });
});
