// The delivery log keeps an event once with its receivers and makes each receiver's delivery when
// first needed. Whatever is made when, it must keep what one delivery per receiver made at once
// would keep: the same deliveries, oldest first, erased alike, each counted as its JSON exactly;
// and a receiver looking for its next delivery finds each of its own once, in the order emitted.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteBudget, jsonBytes, TIMER_BYTES } from "../../sandbox/state/byte-budget.js";
import type { Delivery } from "../../sandbox/deliveries/types.js";
import { ATTEMPT_BYTES, DeliveryLog, Fanout } from "../../sandbox/deliveries/log.js";
import { MAX_RETRIES } from "../../sandbox/deliveries/retry.js";

// Ids a state file may hold: "__proto__" and non-ASCII ones too.
const RECEIVERS = ["rcv_a", "__proto__", "rcv_c", 'rcv_é"🙂'];

type Op =
  | { op: "emit"; receivers: number; subject: number; workflow: boolean; result: boolean }
  | { op: "add"; receiver: number; subject: number }
  | { op: "erase"; subject: number }
  | { op: "pull"; receiver: number }
  | { op: "list" };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("emit" as const),
    receivers: fc.integer({ min: 1, max: RECEIVERS.length }),
    subject: fc.integer({ min: 0, max: 3 }),
    workflow: fc.boolean(),
    result: fc.boolean(),
  }),
  fc.record({
    op: fc.constant("add" as const),
    receiver: fc.integer({ min: 0, max: RECEIVERS.length - 1 }),
    subject: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ op: fc.constant("erase" as const), subject: fc.integer({ min: 0, max: 3 }) }),
  fc.record({
    op: fc.constant("pull" as const),
    receiver: fc.integer({ min: 0, max: RECEIVERS.length - 1 }),
  }),
  fc.record({ op: fc.constant("list" as const) }),
);

/** A kept delivery as the model sees it. */
interface Kept {
  receiver_id: string;
  subject: string;
  channel: string;
  body: string;
  erased?: string;
}

/** A biometric body, with a result or without, numbered in emitting order. */
const body = (result: boolean, n: number) =>
  JSON.stringify({
    n,
    name: 'Zoë "q" 🙂',
    verification: result ? { status: "pass" } : null,
    phone_number: "+1",
  });

/** The erasure the queue applies, on a body. */
function erase(text: string): { body: string; withheld: boolean } {
  const payload = JSON.parse(text) as Record<string, unknown>;
  const withheld = payload.verification !== null;
  return { body: JSON.stringify({ ...payload, phone_number: null, verification: null }), withheld };
}

const AT = 1_795_000_000_000;
const CREATED = "2026-11-27T00:00:00.000Z";

describe("the delivery log", () => {
  it("keeps what a delivery made per receiver at once would keep, each counted as its JSON; pulls each once, in order", () => {
    fc.assert(
      fc.property(
        fc.array(op, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        (ops, maxKept) => {
          const budget = new ByteBudget(Infinity);
          const made: Delivery[] = [];
          const log = new DeliveryLog({
            budget,
            maxKept,
            made: (d) => made.push(d),
            forgotten: () => undefined,
          });
          for (const r of RECEIVERS) log.follow(r);
          // The model: every delivery made at once, in order; erased in place; the oldest forgotten first.
          let model: Kept[] = [];
          const pulled = new Map<string, Delivery[]>();
          const madeBeforeErasure = new Set<Delivery>();
          let n = 0;
          for (const step of ops) {
            if (step.op === "emit") {
              const fanout = new Fanout(RECEIVERS.slice(0, step.receivers));
              const channel = step.workflow ? "workflowCase" : "biometricWebhook";
              const text = body(step.result, n++);
              const subject = `s-${step.subject}`;
              log.emit(fanout, {
                channel,
                event: step.workflow ? "case.completed" : "completed",
                subject,
                created_at: CREATED,
                at: AT,
                headers: { "Content-Type": "application/json" },
                body: text,
              });
              for (const receiver_id of fanout.ids) model.push({ receiver_id, subject, channel, body: text });
            } else if (step.op === "add") {
              const d: Delivery = {
                id: `dlv_added${n}`,
                receiver_id: RECEIVERS[step.receiver] as string,
                channel: "biometricWebhook",
                event: "created",
                subject: `s-${step.subject}`,
                created_at: CREATED,
                status: "pending",
                attempts: [],
                next_attempt_at: AT,
                headers: { "Content-Type": "application/json" },
                body: body(false, n++),
              };
              log.add(d);
              model.push({
                receiver_id: d.receiver_id,
                subject: d.subject,
                channel: d.channel,
                body: d.body,
              });
            } else if (step.op === "erase") {
              const subject = `s-${step.subject}`;
              for (const d of made) if (d.subject === subject) madeBeforeErasure.add(d);
              log.erase(subject, "biometricWebhook", erase);
              for (const k of model) {
                if (k.subject !== subject || k.channel !== "biometricWebhook" || k.erased) continue;
                const erased = erase(k.body);
                k.body = erased.body;
                k.erased = erased.withheld ? "withheld" : "resendable";
              }
            } else if (step.op === "pull") {
              const receiver = RECEIVERS[step.receiver] as string;
              const got = log.pull(receiver);
              if (got) {
                expect(got.status).toBe("pending");
                pulled.set(receiver, [...(pulled.get(receiver) ?? []), got]);
              }
            } else {
              log.list();
            }
            log.trim();
            model = model.slice(Math.max(0, model.length - maxKept));
            expect(log.size).toBe(model.length);
          }
          const kept = log.list();
          expect(kept.map((d) => [d.receiver_id, d.subject, d.channel, d.body, d.erased])).toEqual(
            model.map((k) => [k.receiver_id, k.subject, k.channel, k.body, k.erased]),
          );
          // Each made once, with an id of its own, found by it.
          expect(new Set(made).size).toBe(made.length);
          expect(new Set(kept.map((d) => d.id)).size).toBe(kept.length);
          for (const d of kept) expect(log.get(d.id)).toBe(d);
          // What was forgotten is gone: no delivery is made from a forgotten slot, none is held after it.
          const keptSet = new Set(kept);
          expect(made.filter((d) => !keptSet.has(d) && log.get(d.id) !== undefined)).toEqual([]);
          // Counted as what the state file holds of each: its JSON, its attempts to come, its timer.
          const reserve = (MAX_RETRIES + 1) * ATTEMPT_BYTES + TIMER_BYTES;
          expect(budget.used).toBe(kept.reduce((sum, d) => sum + jsonBytes(d) + reserve, 0));
          for (const d of kept) {
            // A result erased before it was made is made failed; one made before is the queue's to stop.
            if (d.erased === "withheld" && !madeBeforeErasure.has(d)) expect(d.status).toBe("failed");
            if (d.channel === "workflowCase")
              expect(d.headers["X-Workflow-Webhook-Id"]).toMatch(/^whk_[0-9A-Z]{26}$/);
          }
          // A receiver pulls only its own emitted deliveries, each once, in the order they were emitted.
          for (const [receiver, got] of pulled) {
            expect(got.every((d) => d.receiver_id === receiver && !d.id.startsWith("dlv_added"))).toBe(true);
            const order = got.map((d) => JSON.parse(d.body).n as number);
            expect(order).toEqual([...order].sort((a, b) => a - b));
            expect(new Set(order).size).toBe(order.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
