// Copies of one delivery arriving in random orders against createWebhookHandler, in both forms and
// both acknowledge modes, as a property: fast-check's scheduler orders every arrival, every reply of
// the dedupe store (which may fail to claim or to forget) and every handler's outcome (which may
// fail). Whatever the order, a copy is answered 2xx only when the delivery was processed (with
// "after-handler": a handler run succeeded before the answer) or recorded by an attempt that runs
// it (with "before-handler", as documented), and a sender that retries every non-2xx answer gets
// the delivery processed: at least once, and with a store that records, at most once.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AcknowledgeMode,
  createDeduper,
  createWebhookHandler,
  type DedupeStore,
} from "../../src/webhooks/index.js";
import { BEARER, deliver, sentDelivery } from "./handler-direct.js";
import { FORMS } from "./handler-servers.js";

const MODES: AcknowledgeMode[] = ["before-handler", "after-handler"];
/** More attempts than the scripted failures can spend: past them the store and the handler work. */
const MAX_ATTEMPTS = 40;

describe("copies of a delivery in random orders", () => {
  it("are acknowledged only once processed (after-handler) or recorded (before-handler), and processed once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom(...FORMS),
        fc.constantFrom(...MODES),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.boolean(), { maxLength: 8 }), // claim n fails (the store cannot tell)
        fc.array(fc.boolean(), { maxLength: 8 }), // release n fails (the store cannot forget)
        fc.array(fc.boolean(), { maxLength: 8 }), // handler run n fails
        async (s, form, mode, copies, claimFails, releaseFails, handlerFails) => {
          const recorded = new Set<string>();
          const n = { claims: 0, releases: 0, started: 0, succeeded: 0 };
          /** A command that takes effect when sent; its reply (or error) comes when the scheduler says. */
          const command = async <T>(label: string, effect: () => T | Error): Promise<T> => {
            const reply = await s.schedule(Promise.resolve(effect()), label);
            if (reply instanceof Error) throw reply;
            return reply;
          };
          const store: DedupeStore = {
            claim: (key) =>
              command(`claim ${n.claims}`, () =>
                claimFails[n.claims++]
                  ? new Error("ECONNRESET")
                  : !recorded.has(key) && Boolean(recorded.add(key)),
              ),
            release: (key) =>
              command(`release ${n.releases}`, () =>
                releaseFails[n.releases++] ? new Error("ETIMEDOUT") : void recorded.delete(key),
              ),
          };
          const handler = createWebhookHandler({
            credentials: BEARER,
            acknowledge: mode,
            dedupe: createDeduper({ store }),
            onError: () => undefined,
            on: {
              completed: async () => {
                const run = n.started++;
                await s.schedule(Promise.resolve(), `handler run ${run}`);
                if (handlerFails[run]) throw new Error("database down");
                n.succeeded++;
              },
            },
          });
          const d = sentDelivery();
          const statuses: number[] = [];
          /** One attempt; its 2xx is checked against what was processed when it is answered. */
          const attempt = () =>
            deliver(handler, form, d).then(({ status }) => {
              statuses.push(status);
              if (status >= 200 && status < 300) {
                if (mode === "after-handler") expect(n.succeeded, "2xx before a run succeeded").toBe(1);
                // before-handler acknowledges what is recorded: the attempt that claimed it runs it.
                else expect(recorded.size, "2xx for a delivery not recorded").toBe(1);
              }
              return status;
            });
          const arrivals = Array.from({ length: copies }, (_, i) =>
            s.schedule(Promise.resolve(), `copy ${i} arrives`).then(attempt),
          );
          let acknowledged = (await s.waitFor(Promise.all(arrivals))).some((x) => x < 300);
          // The sender sends again what was not acknowledged, one attempt at a time.
          for (let i = 0; !acknowledged && i < MAX_ATTEMPTS; i++)
            acknowledged = (await s.waitFor(attempt())) < 300;
          expect(acknowledged, `never acknowledged: ${statuses.join(" ")}`).toBe(true);
          await s.waitIdle(); // before-handler: the run started after the answer settles
          if (mode === "after-handler") expect(n.succeeded).toBe(1);
          else expect(n.started).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });
});
