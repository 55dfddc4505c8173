// A DedupeStore in Redis, shared by every instance of a receiver. Written against two commands
// both node-redis (v5) and ioredis send as they are (SET … NX PX, GET), through the client the
// caller made: neither package is a dependency, and the client is typed by the one method used.
//
// Why two states. A command whose answer never came (a timeout, a connection lost after the
// write) may still have taken effect, now or later (a client's offline queue, a command resent
// on reconnect, a server that was paused). If a single `SET key NX` were the record, such a write
// would turn the service's retry of a delivery that was answered 503 into a "duplicate", and the
// delivery would be lost. So a claim is first written as `pending` for a short lease; only the
// receiver that saw that write succeed turns it into `done` for the retention, and that receiver
// then processes the delivery. A `pending` key only ever makes a retry wait (it is answered 503
// until the lease ends), never skipped: a write that lands late can delay a delivery, not lose it.
//
// Why a marker. Both states carry the store's own marker: a value under the prefix that another
// application wrote is not a record of this store, and taking it for `done` would acknowledge a
// delivery nobody processes. It is "store unavailable" instead (answered 503, retried).
//
// Why a cap. A command the store gave up on may still sit in the client's queue (a Redis that
// accepts and never answers): the store counts its commands until the client settles them, and
// past the cap refuses a claim at once, so what it puts in the client's memory stays bounded.
import { DeliveryNotRecordedError, MAX_KEY_LENGTH, type DedupeStore } from "./dedupe.js";

/** A node-redis v5 client (`createClient()`): its `sendCommand` is used. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** An ioredis client (`new Redis()`, `new Cluster()`): its `call` is used. */
export interface IoRedisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** What the store reads of an ioredis client's (or Cluster's) options: nothing else. */
interface IoRedisOptions {
  options?: { commandTimeout?: unknown; redisOptions?: { commandTimeout?: unknown } };
}

/** Any client the store can use. */
export type RedisClientLike = NodeRedisLike | IoRedisLike;

/** How long a claim stays `pending` before another attempt may take it over: 30 seconds by default. */
export const DEFAULT_LEASE_MS = 30_000;

/** How long the store waits for each Redis answer before it gives up: 1 second by default. */
export const DEFAULT_REDIS_TIMEOUT_MS = 1_000;

/**
 * How many of the store's commands may wait for Redis at once (sent to the client, not yet settled
 * by it): 1,000 by default, past which a claim is refused at once. About 1.4 KiB each in ioredis.
 */
export const DEFAULT_MAX_IN_FLIGHT = 1_000;

/** The longest key prefix accepted, in UTF-16 code units. */
export const MAX_PREFIX_LENGTH = 256;

export interface RedisDedupeStoreOptions {
  /** Put before every key, to share a Redis with other data: `idv:webhooks:` by default. */
  prefix?: string;
  /**
   * How long a claim stays `pending` (written, not yet confirmed) before a retry may take it
   * over. At least twice `timeoutMs`. Keep it well under the sender's first retry interval
   * (about 70 s for biometric events). Default DEFAULT_LEASE_MS (30 s).
   */
  leaseMs?: number;
  /**
   * How long to wait for each answer before the delivery is reported as not recorded (the
   * client's options that free its queue are in docs/webhooks.md). At most 2^31 - 1 (a timer's
   * limit). Default DEFAULT_REDIS_TIMEOUT_MS (1 s).
   */
  timeoutMs?: number;
  /**
   * How many of the store's commands may be in the client at once (sent, not yet answered or failed
   * by the client); past it a claim is refused at once with DeliveryNotRecordedError
   * (`store_unavailable`), so a Redis that accepts commands and never answers cannot make them
   * pile up. A whole number, at least 1. Default DEFAULT_MAX_IN_FLIGHT (1,000).
   */
  maxInFlight?: number;
}

/** The store's own values: only these are its records (v1 of the format). */
const PENDING = "idv-dedupe:v1:pending";
const DONE = "idv-dedupe:v1:done";

/** A reply as text: clients give strings, or Buffers when told to; anything else is no text. */
const textOf = (reply: unknown): string | undefined =>
  typeof reply === "string"
    ? reply
    : reply instanceof Uint8Array
      ? new TextDecoder().decode(reply)
      : undefined;

// The longest wait a timer takes: setTimeout fires at once, with a warning, past it.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Whole milliseconds for PX: Redis refuses a fraction, a zero, and what String writes with an
 * exponent (1e21 and up) or as Infinity; past 2^53 ms (285,000 years) is for good anyway.
 */
const px = (ms: number) => String(Math.min(Number.MAX_SAFE_INTEGER, Math.max(1, Math.ceil(ms))));

/**
 * A DedupeStore in Redis. A new key is written `idv-dedupe:v1:pending` for `leaseMs`, then
 * `idv-dedupe:v1:done` for the deduper's retention; a key found `done` is a duplicate; a key found
 * `pending` is another attempt in progress (or one whose answer was lost), reported as a
 * DeliveryNotRecordedError (`in_flight`) so that the delivery is answered non-2xx and sent again
 * after the lease. Any other value, a Redis that fails or does not answer within `timeoutMs`, and
 * `maxInFlight` commands already waiting give DeliveryNotRecordedError (`store_unavailable`).
 * Keys are the deduper's 45-character digests after the prefix.
 */
export class RedisDedupeStore implements DedupeStore {
  readonly #send: (args: string[]) => Promise<unknown>;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #timeoutMs: number;
  readonly #maxInFlight: number;
  #inFlight = 0;

  constructor(client: RedisClientLike, options: RedisDedupeStoreOptions = {}) {
    // ioredis clients also have a sendCommand, which takes a Command object: look for call first.
    if (typeof (client as Partial<IoRedisLike>)?.call === "function") {
      const io = client as IoRedisLike & IoRedisOptions;
      const own = io.options;
      if (typeof own?.commandTimeout === "number" || typeof own?.redisOptions?.commandTimeout === "number")
        // ioredis rejects a command on commandTimeout but keeps it queued until Redis answers:
        // the store would count it gone, and a silent Redis could pile commands up without bound.
        throw new TypeError(
          "RedisDedupeStore needs an ioredis client without commandTimeout (it fails a command but keeps it queued); the store's timeoutMs gives up in time, and ioredis's socketTimeout frees the queue (see docs/webhooks.md).",
        );
      this.#send = ([command, ...args]) => io.call(command!, ...args);
    } else if (typeof (client as Partial<NodeRedisLike>)?.sendCommand === "function") {
      const node = client as NodeRedisLike;
      this.#send = (args) => node.sendCommand(args);
    } else {
      throw new TypeError(
        "RedisDedupeStore needs a node-redis client (sendCommand) or an ioredis client (call).",
      );
    }
    this.#prefix = options.prefix ?? "idv:webhooks:";
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (!(Number.isSafeInteger(this.#maxInFlight) && this.#maxInFlight >= 1))
      throw new RangeError("maxInFlight must be a whole number of commands, at least 1.");
    if (typeof this.#prefix !== "string" || this.#prefix.length > MAX_PREFIX_LENGTH)
      throw new RangeError(`prefix must be a string of at most ${MAX_PREFIX_LENGTH} characters.`);
    if (!(this.#timeoutMs > 0 && this.#timeoutMs <= MAX_TIMER_MS))
      throw new RangeError(`timeoutMs must be a positive number of milliseconds, at most ${MAX_TIMER_MS}.`);
    if (!(Number.isFinite(this.#leaseMs) && this.#leaseMs >= 2 * this.#timeoutMs))
      throw new RangeError(
        "leaseMs must be a number of milliseconds at least twice timeoutMs: a claim must outlive the write that confirms it.",
      );
  }

  /** True when this call claimed the key, false when it is `done`; rejects when it cannot tell. */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    if (typeof key !== "string" || key.length > MAX_KEY_LENGTH)
      throw new RangeError(
        `A RedisDedupeStore key is a string of at most ${MAX_KEY_LENGTH} characters: hash longer ones first, as deliveryKey does.`,
      );
    // Infinity is remembering for good, as createDeduper and the in-memory store allow it.
    if (!(ttlMs > 0)) throw new RangeError("ttlMs must be a positive number of milliseconds.");
    const redisKey = this.#prefix + key;
    // A key seen by SET but gone by GET expired in between: look again, a bounded number of times.
    for (let attempt = 0; attempt < 3; attempt++) {
      const set = await this.#command(["SET", redisKey, PENDING, "NX", "PX", px(this.#leaseMs)]);
      if (set !== null && set !== undefined) {
        // Not an answer SET gives: nothing to trust (a `pending` it may have left only delays).
        if (textOf(set) !== "OK") throw new DeliveryNotRecordedError("store_unavailable");
        // Ours. From here this receiver processes the delivery whatever happens to the next
        // write: it may have landed even if its answer is lost, and a `done` nobody processes
        // would lose the delivery. If it failed, the key stays `pending` until the lease ends.
        await this.#command(["SET", redisKey, DONE, "XX", "PX", px(ttlMs)]).catch(() => undefined);
        return true;
      }
      const value = await this.#command(["GET", redisKey]);
      if (value === null || value === undefined) continue;
      const text = textOf(value);
      if (text === undefined) throw new DeliveryNotRecordedError("store_unavailable");
      if (text === PENDING) throw new DeliveryNotRecordedError("in_flight");
      if (text === DONE) return false; // a claim this store confirmed: a duplicate.
      // Not a record of this store (another application under the prefix): it proves nothing.
      throw new DeliveryNotRecordedError("store_unavailable");
    }
    throw new DeliveryNotRecordedError("in_flight");
  }

  /**
   * Forget a key, so that the next attempt at its delivery claims it anew (its handler failed);
   * rejects with DeliveryNotRecordedError when Redis does not answer within timeoutMs.
   */
  async release(key: string): Promise<void> {
    if (typeof key !== "string" || key.length > MAX_KEY_LENGTH)
      throw new RangeError(`A RedisDedupeStore key is a string of at most ${MAX_KEY_LENGTH} characters.`);
    await this.#command(["DEL", this.#prefix + key]);
  }

  /**
   * One command, given up on after timeoutMs; a late answer or error is then ignored. It counts
   * against maxInFlight until the client settles it, however long after the store gave up.
   */
  #command(args: string[]): Promise<unknown> {
    if (this.#inFlight >= this.#maxInFlight)
      return Promise.reject(
        new DeliveryNotRecordedError("store_unavailable", {
          cause: new RangeError(`${this.#maxInFlight} commands already wait for Redis (maxInFlight)`),
        }),
      );
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new DeliveryNotRecordedError("store_unavailable")),
        this.#timeoutMs,
      );
      let sent: Promise<unknown>;
      try {
        sent = Promise.resolve(this.#send(args));
      } catch (error) {
        clearTimeout(timer);
        return reject(new DeliveryNotRecordedError("store_unavailable", { cause: error }));
      }
      this.#inFlight++;
      const settled = () => void this.#inFlight--;
      sent.then(settled, settled);
      sent.then(
        (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(new DeliveryNotRecordedError("store_unavailable", { cause: error }));
        },
      );
    });
  }
}
