// "after-handler": a delivery is answered 200 only once its handler has succeeded (or an earlier
// attempt's did: a duplicate), never while it is being recorded or handled, and never after it
// failed. What a receiver that acknowledges only what it processed needs (Standard Webhooks, Svix):
// a copy arriving while an attempt is in progress is 503, a failed or overdue attempt is 500 and
// forgotten, so that the service's next attempt runs the handler again.
import { deliveryKey } from "./dedupe.js";
import type { CoreResult } from "./core-result.js";
import type { KnownWebhookEvent, UnknownWebhookEvent } from "./types.js";

type Event = KnownWebhookEvent | UnknownWebhookEvent;

/**
 * The most deliveries remembered as failed here but still recorded by the deduper (it could not
 * forget them): 10,000 keys of 45 characters, a few MB at most. Past it the oldest is dropped.
 */
export const MAX_UNFORGOTTEN = 10_000;

/** What the after-handler path needs of the core. */
export interface AcknowledgeAfterDeps {
  /** How long a handler may run before its attempt counts as failed. */
  timeoutMs: number;
  /** Record with the deduper: undefined to process, else the answer (a duplicate is processed anyway with `redo`). */
  record(event: Event, redo: boolean): Promise<CoreResult | undefined>;
  /** Run the handler; false when it failed (already reported). */
  invoke(run: () => unknown, event: Event): Promise<boolean>;
  /** Forget a recorded delivery; false when the deduper could not (already reported). */
  forget(event: Event): Promise<boolean>;
  /** Report a handler failure to onError. */
  report(error: unknown, event: Event): void;
  answer(status: 200 | 500): CoreResult;
  /** The 503 for a copy of a delivery in progress (told to onRefused). */
  inProgress(): CoreResult;
}

/** The "after-handler" answer to a checked event that has a handler; it never rejects. */
export function createAcknowledgeAfter(deps: AcknowledgeAfterDeps) {
  const { timeoutMs, record, invoke, forget, report, answer, inProgress } = deps;
  // The deliveries this process is recording or handling, from before the deduper's claim to the
  // answer. Checked and taken in one turn, so two copies in the same tick cannot both pass: the
  // second is 503, never taken for a duplicate of a first attempt that may still fail.
  const running = new Set<string>();
  // The deliveries whose handler failed here and whose record the deduper could not forget: it
  // still says "seen", so its word is not taken for them and a retry runs the handler again.
  // Insertion order, bounded by MAX_UNFORGOTTEN.
  const unforgotten = new Set<string>();

  /** The handler within timeoutMs; false when it failed or is still running at the deadline. */
  const invokeWithin = (run: () => unknown, event: Event) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        // The late handler is not stopped (nothing here can), only no longer waited for.
        report(
          new DOMException("The handler did not settle within handlerTimeoutMs.", "TimeoutError"),
          event,
        );
        resolve(false);
      }, timeoutMs);
      void invoke(run, event).then((ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });

  const remember = (key: string) => {
    unforgotten.delete(key); // added anew: the newest is dropped last
    if (unforgotten.size >= MAX_UNFORGOTTEN) unforgotten.delete(unforgotten.values().next().value!);
    unforgotten.add(key);
  };

  return async (event: Event, run: () => unknown): Promise<CoreResult> => {
    const key = deliveryKey(event);
    if (running.has(key)) return inProgress();
    running.add(key);
    try {
      const recorded = await record(event, unforgotten.has(key));
      if (recorded) return recorded;
      if (await invokeWithin(run, event)) {
        unforgotten.delete(key);
        return answer(200);
      }
      // Forgotten before the key leaves `running`: a copy arriving in between is 503, not a duplicate.
      if (await forget(event)) unforgotten.delete(key);
      else remember(key);
      return answer(500);
    } finally {
      running.delete(key);
    }
  };
}
