// RedisDedupeStore on a real redis-server, through both client libraries, and its two-state design
// as a property: whatever answers are lost and whatever writes land late, a delivery is never
// taken for a duplicate before some attempt processed it.
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createDeduper,
  DeliveryNotRecordedError,
  deliveryKey,
  parseWebhook,
  RedisDedupeStore,
  type WebhookEvent,
} from "../../src/webhooks/index.js";
import { connectClient, LIBRARIES, TEST_TIMEOUT_MS, TestRedis } from "../support/redis-server.js";
import { deliveryOf } from "./deliveries.js";

const LEASE_MS = 3 * TEST_TIMEOUT_MS;
/** The store's own records (v1). */
const PENDING = "idv-dedupe:v1:pending";
const DONE = "idv-dedupe:v1:done";

function eventOf(transactionId: string): WebhookEvent {
  const d = deliveryOf("completed");
  const { event, error } = parseWebhook(
    JSON.stringify({ ...(d.payload as object), transaction_id: transactionId }),
    {},
  );
  if (!event) throw new Error(error.message);
  return event;
}

/**
 * Ask again while the store cannot tell (a loaded machine may make a command outlast the
 * timeout), as the service would; the first definite answer.
 */
async function definite(ask: () => Promise<boolean>): Promise<boolean> {
  let answer: unknown;
  await vi.waitFor(
    async () => {
      answer = await outcome(ask());
      expect(typeof answer).toBe("boolean");
    },
    { timeout: 15_000, interval: 50 },
  );
  return answer as boolean;
}

/** The reason a claim was refused, or its answer. */
async function outcome(promise: Promise<boolean>): Promise<boolean | string> {
  try {
    return await promise;
  } catch (error) {
    if (!(error instanceof DeliveryNotRecordedError)) throw error;
    return error.reason;
  }
}

let redis: TestRedis;
/** The tests' own view of the server: a plain client, to look at and plant keys. */
let inspect: Awaited<ReturnType<typeof connectClient>>;
const inspector = () => inspect.client as { sendCommand(args: string[]): Promise<unknown> };

beforeAll(async () => {
  redis = await TestRedis.start();
  inspect = await connectClient("node-redis", redis.port);
});
afterAll(async () => {
  await inspect?.close();
  await redis?.close();
});

describe.each(LIBRARIES)("RedisDedupeStore with %s", (library) => {
  let connection: Awaited<ReturnType<typeof connectClient>>;
  let run = 0;
  const prefix = () => `test:${library}:${run}:`;

  beforeAll(async () => {
    connection = await connectClient(library, redis.port);
  });
  afterEach(async () => {
    run++;
    redis.unpause();
    await redis.resume();
  });
  afterAll(() => connection.close());

  const store = (options: { libraryDefaults?: boolean } = {}) =>
    new RedisDedupeStore(connection.client, {
      prefix: prefix(),
      timeoutMs: TEST_TIMEOUT_MS,
      leaseMs: LEASE_MS,
      ...options,
    });

  it("claims a delivery once, keeps it `done` for the retention under the prefix, then forgets it", async () => {
    const deduper = createDeduper({ store: store(), retentionMs: 1_500 });
    const event = eventOf(`t-${library}-ttl`);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(false);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(true);
    const key = `${prefix()}${deliveryKey(event)}`;
    expect(await inspector().sendCommand(["GET", key])).toBe(DONE);
    const ttl = Number(await inspector().sendCommand(["PTTL", key]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_500);
    // A retry after the retention is a new delivery again.
    await vi.waitFor(async () => expect(await inspector().sendCommand(["EXISTS", key])).toBe(0), {
      timeout: 10_000,
      interval: 100,
    });
    expect(await definite(() => deduper.isDuplicate(event))).toBe(false);
  });

  it("answers `in_flight` while another attempt's claim is pending, and claims it once the lease ends", async () => {
    const deduper = createDeduper({ store: store() });
    const event = eventOf(`t-${library}-pending`);
    // Planted with a lease long enough that a stalled machine still asks within it.
    await inspector().sendCommand(["SET", `${prefix()}${deliveryKey(event)}`, PENDING, "PX", "3000"]);
    const answers: (boolean | string)[] = [];
    await vi.waitFor(
      async () => {
        answers.push(await outcome(deduper.isDuplicate(event)));
        expect(answers.at(-1)).toBe(false);
      },
      { timeout: 15_000, interval: 100 },
    );
    // Refused while the planted claim lived, never taken for a duplicate, then claimed once.
    expect(answers).toContain("in_flight");
    expect(answers.filter((a) => typeof a === "boolean")).toEqual([false]);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(true);
  });

  it("reports a stopped Redis, leaves nothing to land later, and claims the retry once Redis is back", async () => {
    const deduper = createDeduper({ store: store() });
    const event = eventOf(`t-${library}-stopped`);
    await redis.stop();
    expect(await outcome(deduper.isDuplicate(event))).toBe("store_unavailable");
    await redis.resume();
    // The refused attempt's SET was never queued: it cannot turn up now that Redis is back.
    await new Promise((resolve) => setTimeout(resolve, 2 * TEST_TIMEOUT_MS));
    expect(await inspector().sendCommand(["EXISTS", `${prefix()}${deliveryKey(event)}`])).toBe(0);
    // The service's retries: refused until the client has reconnected, then claimed, once.
    const answers: (boolean | string)[] = [];
    await vi.waitFor(
      async () => {
        answers.push(await outcome(deduper.isDuplicate(event)));
        expect(answers.at(-1)).toBe(false);
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(answers.filter((a) => typeof a === "boolean")).toEqual([false]);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(true);
  });

  it("reports a Redis that stops answering, and a write it lands late only delays the retry", async () => {
    const deduper = createDeduper({ store: store() });
    const event = eventOf(`t-${library}-paused`);
    redis.pause();
    expect(await outcome(deduper.isDuplicate(event))).toBe("store_unavailable");
    redis.unpause(); // it now runs the SET it had been sent: a `pending` claim nobody confirmed
    const answers: (boolean | string)[] = [];
    await vi.waitFor(
      async () => {
        answers.push(await outcome(deduper.isDuplicate(event)));
        expect(answers.at(-1)).toBe(false);
      },
      { timeout: 15_000, interval: 50 },
    );
    // Never `true` (a duplicate) before the one claim: the delivery was not lost.
    expect(answers.filter((a) => typeof a === "boolean")).toEqual([false]);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(true);
  });

  it("never takes a value it did not write for a duplicate: another application's is store_unavailable until it is gone", async () => {
    const deduper = createDeduper({ store: store() });
    const event = eventOf(`t-${library}-foreign`);
    const key = `${prefix()}${deliveryKey(event)}`;
    // Plain `done` and `pending` (what the store wrote before its records had a marker), and others.
    for (const foreign of [
      "done",
      "pending",
      "OK",
      "1",
      "",
      "idv-dedupe:v2:done",
      `${DONE} `,
      "\u00ff\u0000",
    ]) {
      await inspector().sendCommand(["SET", key, foreign]);
      expect(await outcome(deduper.isDuplicate(event)), JSON.stringify(foreign)).toBe("store_unavailable");
      expect(await inspector().sendCommand(["GET", key])).toBe(foreign); // left as it was
    }
    // A key of another type: Redis refuses the GET, and the store says it cannot tell.
    await inspector().sendCommand(["DEL", key]);
    await inspector().sendCommand(["HSET", key, "done", "1"]);
    expect(await outcome(deduper.isDuplicate(event))).toBe("store_unavailable");
    // Once the foreign value is gone, the service's retry is claimed, once.
    await inspector().sendCommand(["DEL", key]);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(false);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(true);
  });

  it("takes any retention createDeduper accepts and a long lease: Redis gets whole milliseconds it can store", async () => {
    // Infinity (remember for good, as the in-memory store does) and 1e21 (written "1e+21" by String)
    // are refused by Redis as PX values: every delivery would be answered 503.
    const deduper = createDeduper({
      store: new RedisDedupeStore(connection.client, {
        prefix: prefix(),
        timeoutMs: TEST_TIMEOUT_MS,
        leaseMs: 1e21,
      }),
      retentionMs: Infinity,
    });
    const event = eventOf(`t-${library}-long`);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(false);
    expect(await definite(() => deduper.isDuplicate(event))).toBe(true);
    const key = `${prefix()}${deliveryKey(event)}`;
    expect(await inspector().sendCommand(["GET", key])).toBe(DONE);
    expect(Number(await inspector().sendCommand(["PTTL", key]))).toBeGreaterThan(1e15);
  });

  it("refuses a timeoutMs the timer cannot wait (it would fire at once and refuse every delivery)", () => {
    expect(() => new RedisDedupeStore(connection.client, { timeoutMs: 2 ** 31, leaseMs: 2 ** 33 })).toThrow(
      /timeoutMs/,
    );
  });

  it("loses nothing with the library's default options either (offline queue on)", async () => {
    const defaults = await connectClient(library, redis.port, { libraryDefaults: true });
    try {
      const deduper = createDeduper({
        store: new RedisDedupeStore(defaults.client, {
          prefix: prefix(),
          timeoutMs: TEST_TIMEOUT_MS,
          leaseMs: LEASE_MS,
        }),
      });
      const event = eventOf(`t-${library}-defaults`);
      await redis.stop();
      expect(await outcome(deduper.isDuplicate(event))).toBe("store_unavailable");
      await redis.resume();
      const answers: (boolean | string)[] = [];
      await vi.waitFor(
        async () => {
          answers.push(await outcome(deduper.isDuplicate(event)));
          expect(answers.at(-1)).toBe(false);
        },
        { timeout: 15_000, interval: 50 },
      );
      expect(answers.filter((a) => typeof a === "boolean")).toEqual([false]);
    } finally {
      defaults.close();
    }
  });
});

/** A Redis in memory for the property: SET NX/XX PX and GET on a clock the test moves. */
class FakeRedis {
  now = 0;
  readonly #data = new Map<string, { value: string; expires: number }>();
  #live(key: string) {
    const entry = this.#data.get(key);
    return entry && entry.expires > this.now ? entry : undefined;
  }
  run([command, key, value, condition, , ms]: string[]): string | null {
    if (command === "GET") return this.#live(key!)?.value ?? null;
    const exists = this.#live(key!) !== undefined;
    if ((condition === "NX" && exists) || (condition === "XX" && !exists)) return null;
    this.#data.set(key!, { value: value!, expires: this.now + Number(ms) });
    return "OK";
  }
}

describe("RedisDedupeStore's two states, as a property", () => {
  it("never answers `duplicate` for a delivery no attempt processed, and processes each one when nothing fails", async () => {
    // Each command: answered, lost on the way (never runs), or run with its answer lost; a write
    // whose answer is lost may also run later (a queued command, a paused server).
    const fate = fc.constantFrom("ok", "ok", "ok", "dropped", "ran-unanswered", "runs-later");
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            delivery: fc.integer({ min: 0, max: 3 }),
            fates: fc.array(fate, { minLength: 3, maxLength: 3 }),
            wait: fc.integer({ min: 0, max: 2_000 }),
          }),
          { maxLength: 40 },
        ),
        async (attempts) => {
          const redis = new FakeRedis();
          let fates: string[] = [];
          const late: string[][] = [];
          const client = {
            async sendCommand(args: string[]) {
              const f = fates.shift() ?? "ok";
              if (f === "dropped") throw new Error("connection lost");
              if (f === "runs-later") {
                late.push(args);
                throw new Error("timed out");
              }
              const reply = redis.run(args);
              if (f === "ran-unanswered") throw new Error("timed out");
              return reply;
            },
          };
          const store = new RedisDedupeStore(client, { timeoutMs: 100, leaseMs: 1_000 });
          const processed = [0, 0, 0, 0];
          const attempt = async (delivery: number) => {
            const answer = await outcome(store.claim(`k${delivery}`, 60_000));
            if (answer === true) processed[delivery]!++;
            if (answer === false) expect(processed[delivery]).toBeGreaterThan(0);
          };
          for (const { delivery, fates: f, wait } of attempts) {
            fates = [...f];
            await attempt(delivery);
            redis.now += wait;
            if (late.length && wait % 2) redis.run(late.shift()!); // some late writes land now
          }
          // The faults end (late writes land or are lost); the service keeps retrying every
          // delivery refused: each is processed at least once.
          for (const args of late.splice(0)) redis.run(args);
          fates = [];
          for (const delivery of [0, 1, 2, 3]) {
            for (let retry = 0; retry < 3 && processed[delivery] === 0; retry++) {
              redis.now += 1_001;
              await attempt(delivery);
            }
            expect(processed[delivery]).toBeGreaterThan(0);
          }
          // Without faults, exactly once.
          if (attempts.every((a) => a.fates.every((f) => f === "ok")))
            expect(processed.every((n) => n <= 1)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers a boolean or DeliveryNotRecordedError whatever a hostile peer replies, and `duplicate` only for its own `done`", async () => {
    const reply = fc.oneof(
      fc.constantFrom(
        null,
        undefined,
        "OK",
        "pending",
        "done",
        PENDING,
        DONE,
        Buffer.from("OK"),
        Buffer.from(DONE),
        Buffer.from("done"),
      ),
      fc.anything(),
      fc.constant(Object.create(null) as unknown),
      fc.constant({ toString: () => "OK" }),
    );
    const step = fc.record({ reply, fails: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const replies = [...steps];
        const seen: { command: string; reply: unknown }[] = [];
        const client = {
          async sendCommand(args: string[]) {
            const next = replies.shift() ?? { reply: null, fails: true };
            seen.push({ command: args[0]!, reply: next.fails ? "error" : next.reply });
            if (next.fails) throw new Error("boom");
            return next.reply;
          },
        };
        const deduper = createDeduper({
          store: new RedisDedupeStore(client, { timeoutMs: 50, leaseMs: 100 }),
        });
        const answer = await deduper.isDuplicate(eventOf("t-hostile")).then(
          (duplicate) => duplicate,
          (error: unknown) => {
            expect(error).toBeInstanceOf(DeliveryNotRecordedError);
            return "refused";
          },
        );
        const text = (r: unknown) => (r instanceof Uint8Array ? Buffer.from(r).toString() : r);
        if (answer === true) {
          // A duplicate only on a GET that answered the store's own `done`.
          const last = seen.at(-1)!;
          expect(last.command).toBe("GET");
          expect(text(last.reply)).toBe(DONE);
        }
        // Claimed only on a SET that answered OK.
        if (answer === false)
          expect(seen.some((c) => c.command === "SET" && text(c.reply) === "OK")).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("processes a delivery whose confirming write failed (it may have landed: `done` must mean processed)", async () => {
    let calls = 0;
    const client = {
      async call(command: string) {
        calls++;
        if (calls === 1 && command === "SET") return "OK";
        throw new Error("connection lost");
      },
    };
    const store = new RedisDedupeStore(client, { timeoutMs: 100, leaseMs: 200 });
    expect(await store.claim("k", 1_000)).toBe(true);
    expect(calls).toBe(2);
  });

  it("gives up on a client that never answers after timeoutMs, as store_unavailable", async () => {
    const store = new RedisDedupeStore(
      { sendCommand: () => new Promise(() => {}) },
      { timeoutMs: 50, leaseMs: 100 },
    );
    expect(await outcome(store.claim("k", 1_000))).toBe("store_unavailable");
  });

  it("refuses a client it cannot use, a long key or prefix, and a lease shorter than two timeouts", async () => {
    const client = { sendCommand: async () => "OK" };
    expect(() => new RedisDedupeStore({} as never)).toThrow(/node-redis client .* or an ioredis client/);
    expect(() => new RedisDedupeStore(client, { prefix: "p".repeat(257) })).toThrow(RangeError);
    expect(() => new RedisDedupeStore(client, { timeoutMs: 500, leaseMs: 999 })).toThrow(/twice timeoutMs/);
    await expect(new RedisDedupeStore(client).claim("k".repeat(129), 1_000)).rejects.toThrow(/at most 128/);
  });
});
