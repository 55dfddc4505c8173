import { createHash } from "node:crypto";
import type { WebhookEvent } from "./types.js";

/**
 * How long a delivery is remembered by default: 6 hours. The biometric webhook retries up to 8
 * times, the last attempt about 5 hours after the first (x-delivery in the contract); the hour
 * on top covers clock skew and slow retries.
 */
export const DEFAULT_RETENTION_MS = 6 * 60 * 60 * 1000;

/** Where delivery keys are remembered: in memory by default; Redis, a database table… in production. */
export interface DedupeStore {
  /**
   * Remember `key` for `ttlMs` unless it is already remembered. True when this call claimed it
   * (first delivery), false when it was there (a duplicate). Must be atomic, like Redis
   * `SET key 1 NX PX ttl`, when several receivers share the store.
   */
  claim(key: string, ttlMs: number): boolean | Promise<boolean>;
}

export interface MemoryDedupeStoreOptions {
  /** The most keys kept; the oldest are dropped first. Default 100 000. */
  maxEntries?: number;
  /** The clock, in milliseconds. */
  now?: () => number;
}

/** A DedupeStore in one process's memory, bounded in size and forgetting keys when they expire. */
export class MemoryDedupeStore implements DedupeStore {
  readonly #expiries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
    if (!(this.#maxEntries >= 1)) throw new RangeError("maxEntries must be at least 1.");
  }

  /** How many keys are remembered now. */
  get size(): number {
    this.#sweep(this.#now());
    return this.#expiries.size;
  }

  /** Remember a key unless it is remembered and unexpired; true when this call claimed it. */
  claim(key: string, ttlMs: number): boolean {
    const now = this.#now();
    this.#sweep(now);
    const expiry = this.#expiries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    this.#expiries.delete(key);
    this.#expiries.set(key, now + ttlMs);
    while (this.#expiries.size > this.#maxEntries) {
      const oldest = this.#expiries.keys().next().value as string;
      this.#expiries.delete(oldest);
    }
    return true;
  }

  // Keys are kept in insertion order, which is expiry order when every claim uses the same
  // retention; so expired keys sit at the front and each sweep stops at the first live key.
  #sweep(now: number): void {
    for (const [key, expiry] of this.#expiries) {
      if (expiry > now) break;
      this.#expiries.delete(key);
    }
  }
}

/** JSON with object keys sorted, so that the same content always hashes the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The identity of a delivery: X-Workflow-Webhook-Id for workflow deliveries; otherwise
 * transaction_id, event and a hash of the content (an updated event with a new result is a new
 * delivery, a retry of the same one is not). Holds no personal data.
 */
export function deliveryKey(event: WebhookEvent): string {
  if (event.webhookId !== undefined) return `workflow:${event.webhookId}`;
  const transactionId = (event.payload as { transaction_id?: unknown } | null)?.transaction_id;
  const hash = createHash("sha256").update(canonical(event.payload)).digest("base64url");
  return `event:${typeof transactionId === "string" ? transactionId : ""}:${event.event}:${hash}`;
}

export interface DeduperOptions {
  store?: DedupeStore;
  /** How long a delivery is remembered; at least the retry span. Default DEFAULT_RETENTION_MS. */
  retentionMs?: number;
}

/** Something that tells whether a delivery was seen before. */
export interface Deduper {
  /** True when this delivery was already seen within the retention; records it otherwise. */
  isDuplicate(event: WebhookEvent): Promise<boolean>;
}

/** A deduper over a pluggable store (in memory by default), keyed by deliveryKey. */
export function createDeduper(options: DeduperOptions = {}): Deduper {
  const store = options.store ?? new MemoryDedupeStore();
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  if (!(retentionMs > 0)) throw new RangeError("retentionMs must be a positive number of milliseconds.");
  return {
    async isDuplicate(event) {
      return !(await store.claim(deliveryKey(event), retentionMs));
    },
  };
}
