// The probe's listener holds what it counts: each delivery's bytes (never its parsed value, which for
// a list of empty objects is some 30 times larger) and its verdict, under one budget; past the
// budget it refuses (503) and says so, rather than growing until the process dies. And it takes only
// deliveries that carry the credentials it registered (401 otherwise, counted, nothing kept).
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookChecker, type WebhookChecker } from "../../conformance/checks/webhooks.js";
import { EventReceiver, MAX_EVENT_BYTES } from "../../conformance/probe/event-receiver.js";
import type { ProbeSession } from "../../conformance/probe/session.js";
import { openEventWaits } from "../../conformance/probe/workflow-events.js";
import { launchSandbox, type RunningSandbox } from "../../sandbox/start.js";

const open: EventReceiver[] = [];
let checker: WebhookChecker | undefined;

afterEach(async () => {
  for (const receiver of open.splice(0)) await receiver.close();
});

async function listen(budgetBytes: number): Promise<{ receiver: EventReceiver; url: string }> {
  checker ??= await createWebhookChecker();
  const receiver = await EventReceiver.listen(checker, 0, { budgetBytes });
  open.push(receiver);
  return { receiver, url: receiver.localUrl };
}

const post = (url: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(
    (r) => r.status,
    () => 0,
  );

/** `[{},{},…]` of about `bytes` bytes: cheap to send, costly once parsed. */
const emptyObjects = (bytes: number) =>
  `[${Array.from({ length: Math.floor(bytes / 3) }, () => "{}").join(",")}]`;

/** The bytes the kept events are counted for, found by waiting for none (every kept one is scanned). */
async function keptBytes(receiver: EventReceiver): Promise<number> {
  let total = 0;
  await receiver.waitFor((e) => {
    total += e.bytes;
    return false;
  }, 0);
  return total;
}

describe("the probe's listener holds only what it counts", () => {
  it("counts each delivery's bytes and verdict, keeps no parsed value, and refuses past its budget", async () => {
    const budget = 1024 * 1024;
    const { receiver, url } = await listen(budget);
    const body = emptyObjects(200 * 1024);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push(await post(url, body));
      // What it holds is what its kept events are counted for, and never more than the budget.
      expect(receiver.heldBytes).toBe(await keptBytes(receiver));
      expect(receiver.heldBytes).toBeLessThanOrEqual(budget);
    }
    const kept = statuses.filter((s) => s === 200).length;
    expect(kept).toBeGreaterThan(0);
    expect(statuses.slice(kept).every((s) => s === 503)).toBe(true);
    expect(receiver.refusals.overBudget).toBe(8 - kept);
    // Each kept event is counted at least for its body's bytes.
    expect(receiver.heldBytes).toBeGreaterThanOrEqual(kept * Buffer.byteLength(body));
    // Parsed anew at each call: nothing parsed is held between calls.
    const event = await receiver.waitFor(() => true, 0);
    const first = event?.json();
    expect(Array.isArray(first)).toBe(true);
    expect(event?.json()).not.toBe(first);
  });

  it("refuses a delivery the budget cannot hold while it reads it, and keeps nothing of it", async () => {
    const { receiver, url } = await listen(64 * 1024);
    expect(await post(url, JSON.stringify({ id: "x", pad: "y".repeat(100 * 1024) }))).toBe(503);
    expect(receiver.heldBytes).toBe(0);
    expect(receiver.refusals.overBudget).toBe(1);
    // Under the budget, a delivery is still taken.
    expect(await post(url, JSON.stringify({ id: "small" }))).toBe(200);
  });

  it("never holds more than its budget, whatever the deliveries' sizes (property)", async () => {
    const budget = 256 * 1024;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 96 * 1024 }), { minLength: 1, maxLength: 12 }),
        async (sizes) => {
          const { receiver, url } = await listen(budget);
          for (const size of sizes) {
            const status = await post(url, emptyObjects(size));
            expect([200, 503]).toContain(status);
            expect(receiver.heldBytes).toBeLessThanOrEqual(budget);
            expect(receiver.heldBytes).toBe(await keptBytes(receiver));
          }
          await receiver.close();
          open.splice(open.indexOf(receiver), 1);
        },
      ),
      { numRuns: 15 },
    );
  });

  it(`still refuses a body over ${MAX_EVENT_BYTES} bytes with 413, whatever the budget`, async () => {
    const { receiver, url } = await listen(8 * MAX_EVENT_BYTES);
    const status = await post(url, new Uint8Array(MAX_EVENT_BYTES + 1).fill(0x20));
    expect([413, 0]).toContain(status);
    expect(receiver.heldBytes).toBe(0);
  });
});

describe("the probe's listener takes only deliveries with the credentials it registered", () => {
  it("answers 401 to a delivery without the bearer token, or with another, and counts it", async () => {
    const { receiver, url } = await listen(1024 * 1024);
    receiver.requireBearer("t0ken-registered");
    const body = JSON.stringify({ id: "evt-auth" });
    expect(await post(url, body)).toBe(401);
    expect(await post(url, body, { authorization: "Bearer another" })).toBe(401);
    expect(await post(url, body, { authorization: "Basic dDBrZW4tcmVnaXN0ZXJlZA==" })).toBe(401);
    expect(receiver.refusals.unauthorized).toBe(3);
    expect(receiver.heldBytes).toBe(0);
    expect(await receiver.waitFor(() => true, 0)).toBeUndefined();
    expect(await post(url, body, { authorization: "Bearer t0ken-registered" })).toBe(200);
    expect((await receiver.waitFor(() => true, 0))?.json()).toEqual({ id: "evt-auth" });
  });
});

describe("against the sandbox, the probe's listener", () => {
  let sandbox: RunningSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it("refuses a stranger's delivery (401) while taking the sandbox's, and the run's notes say so", async () => {
    sandbox = await launchSandbox({ port: 0, credentials: { apiKey: "k-budget-1", secret: "s-budget-1" } });
    const heard: { url?: string } = {};
    const session = {
      options: {
        baseUrl: new URL(sandbox.url),
        timeoutMs: 10_000,
        onReceiverListening: (url: string) => (heard.url = url),
      },
      notes: [] as string[],
    } as unknown as ProbeSession;
    const waits = await openEventWaits(session, new Map(), { eventTimeoutMs: 1000 });
    try {
      expect(heard.url).toBeDefined();
      expect(await post(heard.url as string, JSON.stringify({ event: "completed" }))).toBe(401);
      expect(await post(heard.url as string, "{}", { authorization: "Bearer guessed" })).toBe(401);
    } finally {
      await waits.close();
    }
    expect(session.notes).toContain(
      "stateful: the probe's listener refused 2 deliveries (401) without the credentials it registered; those were not checked",
    );
  });
});
