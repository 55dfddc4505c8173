// Nothing hidden, nothing twice: over random receivers (answering at once, slowly, with 500, by a
// reset, or never) and random schedules of events and advances, every delivery due in an advance's
// window is settled when the advance answers or listed in its `in_flight`, and no attempt is
// recorded that the receiver did not get (nor one it got twice).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSandbox, type ReceiverHandler } from "../../sandbox/index.js";

type Behaviour = "ok" | "fail" | "slow-ok" | "slow-fail" | "hang" | "reset";
type Step = { trigger: "pending" | "created" } | { advance: string };

const behaviour = fc.constantFrom<Behaviour>("ok", "fail", "slow-ok", "slow-fail", "hang", "reset");
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ trigger: fc.constantFrom("pending" as const, "created" as const) }),
  fc.record({ advance: fc.constantFrom("PT1S", "PT2M", "PT10M", "PT1H", "PT6H") }),
);

/** A handler acting as `kind`, counting the deliveries it got by event and record. */
function receiver(kind: Behaviour, delayMs: number, calls: Map<string, number>): ReceiverHandler {
  return async (request) => {
    const body = (await request.json()) as { event: string; transaction_id: string };
    const key = `${body.event} ${body.transaction_id}`;
    calls.set(key, (calls.get(key) ?? 0) + 1);
    if (kind === "hang") return new Promise<Response>(() => {});
    if (kind === "reset") throw new TypeError("connection reset");
    if (kind.startsWith("slow")) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return new Response(null, { status: kind.endsWith("ok") ? 204 : 500 });
  };
}

describe("an advance's answer", () => {
  it("settles or lists every delivery due in its window, and records each attempt once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(behaviour, fc.integer({ min: 1, max: 25 })), { minLength: 1, maxLength: 3 }),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        async (kinds, steps) => {
          const sandbox = await createSandbox({ key: "k", secret: "s", deliveryTimeoutMs: 60 });
          const calls = kinds.map(() => new Map<string, number>());
          try {
            const ids: string[] = [];
            for (const [i, [kind, delayMs]] of kinds.entries())
              ids.push(
                (await sandbox.receivers.add(receiver(kind, delayMs, calls[i] as Map<string, number>))).id,
              );
            for (const s of [...steps, { advance: "PT1S" }]) {
              if ("trigger" in s) {
                await sandbox.control.trigger(s.trigger);
                continue;
              }
              const answer = await sandbox.control.advance(s.advance);
              const listed = new Set(answer.in_flight.deliveries);
              expect(answer.in_flight.count).toBe(listed.size);
              for (const d of await sandbox.control.deliveries()) {
                const due =
                  d.next_attempt_at !== null && Date.parse(d.next_attempt_at) <= Date.parse(answer.now);
                if (d.status === "pending" && due) expect(listed.has(d.id), `${d.id} ${d.event}`).toBe(true);
              }
            }
            for (const d of await sandbox.control.deliveries()) {
              const got = calls[ids.indexOf(d.receiver_id)]?.get(`${d.event} ${d.subject}`) ?? 0;
              // Recorded only what arrived; at most the one attempt in flight not yet recorded.
              expect(d.attempts.length).toBeLessThanOrEqual(got);
              expect(got - d.attempts.length).toBeLessThanOrEqual(1);
            }
          } finally {
            await sandbox.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
