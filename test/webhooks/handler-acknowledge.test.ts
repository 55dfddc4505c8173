// acknowledge: "after-handler" answers 200 only for what was processed (or already was), in both
// forms, with every interleaving forced by the test: copies that arrive while the claim is in
// flight or the handler runs, a handler that fails or never settles, a store that is slow, fails
// to claim or fails to forget. No sockets, no sleeps: each step waits on a promise the test settles.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createDeduper,
  createWebhookHandler,
  DEFAULT_HANDLER_TIMEOUT_MS,
  type DedupeStore,
  type WebhookFailure,
  type WebhookHandlerOptions,
  type WebhookRefusal,
} from "../../src/webhooks/index.js";
import { createAcknowledgeAfter, MAX_UNFORGOTTEN } from "../../src/webhooks/acknowledge-after.js";
import type { UnknownWebhookEvent } from "../../src/webhooks/types.js";
import { BEARER, deferred, deliver, gatedStore, sentDelivery } from "./handler-direct.js";
import { FORMS } from "./handler-servers.js";

afterEach(() => void vi.useRealTimers());

/** An after-handler receiver of `completed` whose handler does what `attempt` says, per call. */
function receiver(attempt: (n: number) => unknown, options: Partial<WebhookHandlerOptions> = {}) {
  const refusals: WebhookRefusal[] = [];
  const errors: { stage: WebhookFailure["stage"]; name: string }[] = [];
  let calls = 0;
  const handler = createWebhookHandler({
    credentials: BEARER,
    acknowledge: "after-handler",
    onRefused: (r) => void refusals.push(r),
    onError: (error, failure) => void errors.push({ stage: failure.stage, name: (error as Error).name }),
    on: { completed: () => attempt(++calls) },
    ...options,
  });
  return { handler, refusals, errors, calls: () => calls };
}

const failFirst = (n: number) => {
  if (n === 1) throw new Error("database down");
};

describe.each(FORMS)("after-handler, %s form", (form) => {
  const d = sentDelivery();

  it("two copies in the same tick, default deduper: one runs, the other is 503; never 200 for a failed attempt", async () => {
    const r = receiver(failFirst);
    const answers = await Promise.all([deliver(r.handler, form, d), deliver(r.handler, form, d)]);
    expect(answers.map((a) => a.status).sort()).toEqual([500, 503]);
    expect(r.refusals).toEqual([{ status: 503, reason: "in_progress" }]);
    expect(r.calls()).toBe(1);
    // The service sends it again (it was told 500 and 503): processed now, then a duplicate.
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect(r.calls()).toBe(2);
  });

  it("a copy that arrives while the first attempt's claim is in flight is 503, without a claim of its own", async () => {
    const gate = gatedStore();
    const r = receiver(failFirst, { dedupe: createDeduper({ store: gate.store }) });
    const first = deliver(r.handler, form, d);
    await gate.claimed(1); // the first attempt waits on the store
    const copy = deliver(r.handler, form, d);
    // The copy is answered before it claims anything: it never races the first attempt's claim.
    const firstOut = await Promise.race([copy.then(() => "answered"), gate.claimed(2).then(() => "claimed")]);
    expect(firstOut).toBe("answered");
    expect((await copy).status).toBe(503);
    gate.openGate();
    expect((await first).status).toBe(500);
    expect(gate.calls).toEqual({ claims: 1, releases: 1 });
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect(r.calls()).toBe(2);
  });

  it("a claim that fails is 503 for the attempt and for its copy, and the next attempt is processed", async () => {
    const claim = deferred<boolean>();
    let claims = 0;
    const store: DedupeStore = { claim: () => (++claims === 1 ? claim.promise : true) };
    const r = receiver(() => undefined, { dedupe: createDeduper({ store }) });
    const first = deliver(r.handler, form, d);
    const copy = await deliver(r.handler, form, d);
    expect(copy.status).toBe(503);
    claim.reject(new Error("ECONNRESET"));
    expect((await first).status).toBe(503);
    expect(r.refusals.map((x) => x.reason)).toEqual(["in_progress", "not_recorded"]);
    expect(r.calls()).toBe(0);
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect(r.calls()).toBe(1);
  });

  it("a copy while the handler runs and then succeeds is 503; once it has, copies are duplicates (200, not run)", async () => {
    const gate = deferred();
    const started = deferred();
    const r = receiver(async (n) => {
      if (n > 1) return;
      started.resolve();
      await gate.promise;
    });
    const first = deliver(r.handler, form, d);
    await started.promise;
    expect((await deliver(r.handler, form, d)).status).toBe(503);
    gate.resolve();
    expect((await first).status).toBe(200);
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect(r.calls()).toBe(1);
  });

  it("a delivery the store could not forget is run again by the next attempt here, not taken for a duplicate", async () => {
    const gate = gatedStore({ releaseFailures: 2 });
    gate.openGate();
    const r = receiver(
      (n) => {
        if (n <= 2) throw new Error("database down");
      },
      { dedupe: createDeduper({ store: gate.store }) },
    );
    expect((await deliver(r.handler, form, d)).status).toBe(500); // fails; the store still holds it
    expect((await deliver(r.handler, form, d)).status).toBe(500); // run again, fails, still held
    expect(gate.recorded.size).toBe(1);
    expect((await deliver(r.handler, form, d)).status).toBe(200); // run again, succeeds
    expect((await deliver(r.handler, form, d)).status).toBe(200); // a duplicate now
    expect(r.calls()).toBe(3);
    expect(r.errors.map((e) => e.stage)).toEqual(["handler", "forget", "handler", "forget"]);
  });

  it("a handler that never settles is 500 at its deadline, its delivery released: the retry runs it again", async () => {
    const r = receiver((n) => (n === 1 ? new Promise(() => {}) : undefined), { handlerTimeoutMs: 1 });
    expect((await deliver(r.handler, form, d)).status).toBe(500);
    expect(r.errors).toEqual([{ stage: "handler", name: "TimeoutError" }]);
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect(r.calls()).toBe(2);
  });

  it("by default the deadline is DEFAULT_HANDLER_TIMEOUT_MS: copies are 503 until then, not for the life of the process", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const started = deferred();
    const r = receiver((n) => {
      if (n > 1) return;
      started.resolve();
      return new Promise(() => {});
    });
    let answered: number | undefined;
    void deliver(r.handler, form, d).then((a) => (answered = a.status));
    await started.promise;
    await vi.advanceTimersByTimeAsync(DEFAULT_HANDLER_TIMEOUT_MS - 1);
    expect(answered).toBeUndefined();
    expect((await deliver(r.handler, form, d)).status).toBe(503);
    await vi.advanceTimersByTimeAsync(1);
    expect(answered).toBe(500);
    expect((await deliver(r.handler, form, d)).status).toBe(200);
    expect(r.calls()).toBe(2);
  });
});

describe("handlerTimeoutMs", () => {
  it.each([0, -1, Number.NaN, Infinity, 2 ** 31])("refuses %s when the handler is made", (ms) => {
    expect(() => receiver(() => undefined, { handlerTimeoutMs: ms })).toThrow(RangeError);
  });
});

describe("the deliveries remembered as not forgotten", () => {
  it("are at most MAX_UNFORGOTTEN, the oldest dropped first", async () => {
    const redone: boolean[] = [];
    const ack = createAcknowledgeAfter({
      timeoutMs: 60_000,
      record: async (_, redo) => void redone.push(redo),
      invoke: async () => false, // every handler fails…
      forget: async () => false, // …and no delivery can be forgotten
      report: () => undefined,
      answer: (status) => ({ answer: { status, headers: {}, body: "" } }),
      inProgress: () => ({ answer: { status: 503, headers: {}, body: "" } }),
    });
    const event = (id: number) =>
      ({
        kind: "unknown",
        channel: "workflowCase",
        event: "x",
        payload: {},
        webhookId: `w${id}`,
      }) as UnknownWebhookEvent;
    for (let i = 0; i <= MAX_UNFORGOTTEN; i++) await ack(event(i), () => undefined);
    redone.length = 0;
    await ack(event(0), () => undefined); // dropped: the store's word is taken again
    await ack(event(MAX_UNFORGOTTEN), () => undefined); // still remembered: run again
    await ack(event(1), () => undefined); // dropped by the attempt just before
    expect(redone).toEqual([false, true, false]);
  });
});
