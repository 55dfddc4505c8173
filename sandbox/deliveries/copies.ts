// The deliveries the queue makes from others: a replay (the same body and headers, a new delivery)
// and a biometric event's body with its personal data erased (its verification was archived).
import { id } from "./log.js";
import type { Delivery } from "./types.js";

/** A new pending delivery of `original`'s body and headers, made at `created_at`, due at `now`. */
export function replayOf(original: Delivery, createdAt: string, now: number): Delivery {
  return {
    ...original,
    id: id("dlv"),
    created_at: createdAt,
    status: "pending",
    attempts: [],
    next_attempt_at: now,
    replay_of: original.id,
  };
}

/** A biometric event's body with its personal data erased; `withheld` when it held the result. */
export function erasedBiometricBody(body: string): { body: string; withheld: boolean } {
  const payload = JSON.parse(body) as Record<string, unknown>;
  const withheld = payload.verification !== null && payload.verification !== undefined;
  payload.phone_number = null;
  payload.verification = null;
  return { body: JSON.stringify(payload), withheld };
}
