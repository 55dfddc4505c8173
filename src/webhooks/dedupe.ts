import { createHash, type Hash } from "node:crypto";
import type { WebhookEvent } from "./types.js";

/**
 * How long a delivery is remembered by default: 6 hours. The biometric webhook retries up to 8
 * times, the last attempt about 5 hours after the first (x-delivery in the contract); the hour
 * on top covers clock skew and slow retries.
 */
export const DEFAULT_RETENTION_MS = 6 * 60 * 60 * 1000;

/** The most keys a MemoryDedupeStore keeps by default. */
export const DEFAULT_MAX_ENTRIES = 100_000;

/**
 * The longest key a MemoryDedupeStore accepts, in UTF-16 code units. deliveryKey's keys are 45;
 * the limit is what bounds the store's memory in bytes, whatever the sender puts in a delivery.
 */
export const MAX_KEY_LENGTH = 128;

/** Why a delivery could not be recorded. */
export type NotRecordedReason = "store_unavailable" | "in_flight";

const NOT_RECORDED: Record<NotRecordedReason, string> = {
  store_unavailable:
    "The dedupe store did not record the delivery (unreachable, failing or too slow): answer it with a non-2xx status so that it is sent again.",
  in_flight:
    "Another attempt at this delivery holds its claim (it is being recorded now, or that attempt's answer was lost): answer it with a non-2xx status so that it is sent again.",
};

/**
 * A delivery the deduper could not record, so it must not be acknowledged: answer non-2xx (503)
 * and the service sends it again. Its message is fixed text: no key, no value from the delivery.
 */
export class DeliveryNotRecordedError extends Error {
  override readonly name = "DeliveryNotRecordedError";
  /** `store_unavailable`: the store failed or timed out; `in_flight`: another attempt holds the claim. */
  readonly reason: NotRecordedReason;

  constructor(reason: NotRecordedReason, options?: { cause?: unknown }) {
    super(NOT_RECORDED[reason], options);
    this.reason = reason;
  }
}

/** Where delivery keys are remembered: in memory by default; Redis (RedisDedupeStore), a table… in production. */
export interface DedupeStore {
  /**
   * Remember `key` for `ttlMs` unless it is already remembered. True when this call claimed it
   * (first delivery), false when it was there (a duplicate). Must be atomic when several
   * receivers share the store. Throw (or reject) when it cannot tell: the deduper reports a
   * DeliveryNotRecordedError and the delivery is answered non-2xx. A store over a network must
   * also make a write it gave up on harmless should it land later: RedisDedupeStore shows how.
   */
  claim(key: string, ttlMs: number): boolean | Promise<boolean>;
  /**
   * Forget `key`, so that the next attempt at the delivery claims it anew: called when the
   * delivery could not be processed and was answered non-2xx. Optional; throw when it cannot.
   */
  release?(key: string): void | Promise<void>;
}

export interface MemoryDedupeStoreOptions {
  /** The most keys kept; the oldest are dropped first. Default DEFAULT_MAX_ENTRIES (100 000). */
  maxEntries?: number;
  /** The clock, in milliseconds. */
  now?: () => number;
}

/**
 * A DedupeStore in one process's memory, bounded in entries and in bytes (keys are at most
 * MAX_KEY_LENGTH long), forgetting keys when they expire. Every claim costs O(1): keys sit in a
 * ring in claim order, so the oldest is evicted and the expired are swept from the ring's head,
 * and the index Map is only ever looked up, never iterated (iterating a Map from the start walks
 * the holes its deletions leave, which made each claim past the cap cost O(n)).
 */
export class MemoryDedupeStore implements DedupeStore {
  /** Key → the sequence number of its slot in the ring. */
  readonly #index = new Map<string, number>();
  // The ring: slot `seq % maxEntries` holds the key claimed with sequence number `seq` (undefined
  // once dropped) and its expiry. Plain arrays grow as slots are first used, so a store that
  // sees little traffic stays small.
  readonly #keys: (string | undefined)[] = [];
  readonly #expiries: number[] = [];
  /** The oldest sequence number still in the ring, and the next one to use. */
  #head = 0;
  #tail = 0;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#now = options.now ?? Date.now;
    if (!(Number.isSafeInteger(this.#maxEntries) && this.#maxEntries >= 1))
      throw new RangeError("maxEntries must be a whole number, at least 1.");
  }

  /** How many keys are remembered now. */
  get size(): number {
    this.#sweep(this.#now());
    return this.#index.size;
  }

  /** Remember a key unless it is remembered and unexpired; true when this call claimed it. */
  claim(key: string, ttlMs: number): boolean {
    if (typeof key !== "string" || key.length > MAX_KEY_LENGTH)
      throw new RangeError(
        `A MemoryDedupeStore key is a string of at most ${MAX_KEY_LENGTH} characters: hash longer ones first, as deliveryKey does.`,
      );
    const now = this.#now();
    this.#sweep(now);
    const seq = this.#index.get(key);
    if (seq !== undefined) {
      if (this.#expiries[seq % this.#maxEntries]! > now) return false;
      // Expired but not yet swept (it was claimed with a longer ttl than a later key).
      this.#drop(seq);
    }
    if (this.#tail - this.#head === this.#maxEntries) this.#drop(this.#head++);
    const slot = this.#tail % this.#maxEntries;
    this.#keys[slot] = key;
    this.#expiries[slot] = now + ttlMs;
    this.#index.set(key, this.#tail++);
    return true;
  }

  // The ring is in claim order, which is expiry order when every claim uses the same retention:
  // expired keys sit at the head, and each sweep stops at the first live one. With mixed
  // retentions a key may outlive its expiry in the ring; claim checks the expiry itself.
  /** Forget a key (the delivery was not processed): the next claim of it succeeds. */
  release(key: string): void {
    const seq = this.#index.get(key);
    if (seq !== undefined) this.#drop(seq);
  }

  #sweep(now: number): void {
    while (this.#head < this.#tail && this.#expiries[this.#head % this.#maxEntries]! <= now)
      this.#drop(this.#head++);
  }

  #drop(seq: number): void {
    const slot = seq % this.#maxEntries;
    const key = this.#keys[slot];
    if (key !== undefined && this.#index.get(key) === seq) this.#index.delete(key);
    this.#keys[slot] = undefined;
  }
}

/** Base64url SHA-256: 43 characters whatever the input. */
const digest = (hash: Hash) => hash.digest("base64url");

// Text is handed to the hash in pieces of about this many characters: fewer calls into C++.
const FLUSH_AT = 16_384;

/**
 * Feed JSON with object keys sorted (so that the same content always hashes the same) to a hash.
 * Iterative, with an explicit stack: a delivery may nest as deep as its sender likes.
 */
function hashCanonical(hash: Hash, value: unknown): void {
  // Each entry is a value still to write, or (boxed) text to write as it is.
  const stack: ({ text: string } | { value: unknown })[] = [{ value }];
  let out = "";
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ("text" in item) {
      out += item.text;
    } else {
      const v = item.value;
      if (Array.isArray(v)) {
        out += "[";
        stack.push({ text: "]" });
        for (let i = v.length - 1; i >= 0; i--) {
          stack.push({ value: v[i] });
          if (i > 0) stack.push({ text: "," });
        }
      } else if (v !== null && typeof v === "object") {
        out += "{";
        stack.push({ text: "}" });
        // Default sort: by UTF-16 code units. Own enumerable members only, as JSON.stringify.
        const keys = Object.keys(v).sort();
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          stack.push({ value: (v as Record<string, unknown>)[key] });
          stack.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(key)}:` });
        }
      } else {
        // JSON.stringify of a primitive never recurses; undefined (not JSON) is written as null.
        out += JSON.stringify(v) ?? "null";
      }
    }
    if (out.length >= FLUSH_AT) {
      hash.update(out, "utf8");
      out = "";
    }
  }
  hash.update(out, "utf8");
}

/**
 * The identity of a delivery, 45 characters long whatever the delivery holds: `w:` and a hash of
 * X-Workflow-Webhook-Id for workflow deliveries; otherwise `e:` and a hash of transaction_id,
 * event and content (an updated event with a new result is a new delivery, a retry of the same
 * one is not). Holds no personal data; never throws on an event parseWebhook returned.
 */
export function deliveryKey(event: WebhookEvent): string {
  if (event.webhookId !== undefined)
    return `w:${digest(createHash("sha256").update(event.webhookId, "utf8"))}`;
  const payload = event.payload as { transaction_id?: unknown } | null;
  const transactionId =
    typeof payload === "object" && payload !== null && typeof payload.transaction_id === "string"
      ? payload.transaction_id
      : "";
  // Each part is JSON, so no choice of values makes two different triples feed the same text.
  const hash = createHash("sha256").update(
    `${JSON.stringify(transactionId)},${JSON.stringify(event.event)},`,
  );
  hashCanonical(hash, event.payload);
  return `e:${digest(hash)}`;
}

export interface DeduperOptions {
  store?: DedupeStore;
  /** How long a delivery is remembered; at least the retry span. Default DEFAULT_RETENTION_MS. */
  retentionMs?: number;
}

/** Something that tells whether a delivery was seen before. */
export interface Deduper {
  /**
   * True when this delivery was already seen within the retention; records it otherwise. Rejects
   * with a DeliveryNotRecordedError when the store could not record it (never with the in-memory
   * store): then the delivery must be answered non-2xx, never acknowledged.
   */
  isDuplicate(event: WebhookEvent): Promise<boolean>;
  /**
   * Forget a delivery recorded by isDuplicate that could not be processed, so that the service's
   * next attempt is not taken for a duplicate. Rejects when the store cannot forget (no `release`).
   */
  forget?(event: WebhookEvent): Promise<void>;
}

/** A deduper over a pluggable store (in memory by default), keyed by deliveryKey. */
export function createDeduper(options: DeduperOptions = {}): Deduper {
  const store = options.store ?? new MemoryDedupeStore();
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  if (!(retentionMs > 0)) throw new RangeError("retentionMs must be a positive number of milliseconds.");
  return {
    async isDuplicate(event) {
      const key = deliveryKey(event);
      let claimed: boolean;
      try {
        claimed = await store.claim(key, retentionMs);
      } catch (error) {
        // One error type for the receiver to answer non-2xx on; the store's own is kept as cause.
        if (error instanceof DeliveryNotRecordedError) throw error;
        throw new DeliveryNotRecordedError("store_unavailable", { cause: error });
      }
      return !claimed;
    },
    async forget(event) {
      if (typeof store.release !== "function")
        throw new TypeError("The dedupe store has no release method: it cannot forget a delivery.");
      await store.release(deliveryKey(event));
    },
  };
}
