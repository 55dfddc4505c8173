// RedisDedupeStore bounds what it puts in the client: a Redis that accepts connections and never
// answers gets at most `maxInFlight` of the store's commands, whatever the client's options, and
// every claim past them is refused at once as not recorded (503), never queued.
import { createServer, type Server, type Socket } from "node:net";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_MAX_IN_FLIGHT,
  DeliveryNotRecordedError,
  RedisDedupeStore,
} from "../../src/webhooks/index.js";
import { LIBRARIES, type Library } from "../support/redis-server.js";

/** The error a claim was refused with (a DeliveryNotRecordedError), or its answer. */
async function refusal(promise: Promise<boolean>): Promise<DeliveryNotRecordedError | boolean> {
  try {
    return await promise;
  } catch (error) {
    if (!(error instanceof DeliveryNotRecordedError)) throw error;
    return error;
  }
}

const refusedByCap = (answer: DeliveryNotRecordedError | boolean) =>
  answer instanceof DeliveryNotRecordedError &&
  answer.reason === "store_unavailable" &&
  /maxInFlight/.test(String((answer.cause as Error | undefined)?.message));

/** A "Redis" on 127.0.0.1 that accepts connections, reads everything and never answers. */
class SilentRedis {
  received = "";
  readonly #sockets = new Set<Socket>();
  readonly #server: Server = createServer((socket) => {
    this.#sockets.add(socket);
    socket.on("data", (chunk: Buffer) => (this.received += chunk.toString("latin1")));
    socket.on("error", () => {});
  });
  get port() {
    return (this.#server.address() as { port: number }).port;
  }
  async listen() {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
  }
  /** How many times a command named `name` arrived. */
  count(name: string): number {
    return this.received.split(`\r\n$${name.length}\r\n${name}\r\n`).length - 1;
  }
  async close() {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/**
 * A client of `library` connected to the silent server with no bound of its own: no command
 * timeout, no queue limit, commands kept across reconnects (the handshake, which would never be
 * answered, is turned off so that the client counts as connected).
 */
async function unboundedClient(library: Library, port: number) {
  if (library === "ioredis") {
    const client = new Redis({
      host: "127.0.0.1",
      port,
      lazyConnect: true,
      enableReadyCheck: false,
      disableClientInfo: true,
      maxRetriesPerRequest: null,
    });
    client.on("error", () => {});
    await client.connect();
    return {
      client,
      sentinel: () => void client.call("ECHO", "sentinel").catch(() => {}),
      close: () => client.disconnect(),
    };
  }
  const client = createClient({ socket: { host: "127.0.0.1", port }, disableClientInfo: true });
  client.on("error", () => {});
  await client.connect();
  return {
    client,
    sentinel: () => void client.sendCommand(["ECHO", "sentinel"]).catch(() => {}),
    close: () => client.destroy(),
  };
}

describe.each(LIBRARIES)("a Redis that accepts connections and never answers, through %s", (library) => {
  const silent = new SilentRedis();
  let connection: Awaited<ReturnType<typeof unboundedClient>>;
  beforeAll(async () => {
    await silent.listen();
    connection = await unboundedClient(library, silent.port);
  });
  afterAll(async () => {
    connection.close();
    await silent.close();
  });

  it("gets at most maxInFlight of the store's commands; every claim past them is refused at once", async () => {
    const maxInFlight = 25;
    const store = new RedisDedupeStore(connection.client, { timeoutMs: 20, leaseMs: 40, maxInFlight });
    const answers = await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => refusal(store.claim(`k${i}`, 60_000))),
    );
    // Each refused as not recorded (503): the first maxInFlight after their timeout, the rest by the cap.
    expect(
      answers.every((a) => a instanceof DeliveryNotRecordedError && a.reason === "store_unavailable"),
    ).toBe(true);
    expect(answers.filter(refusedByCap)).toHaveLength(2_000 - maxInFlight);
    // Later claims too, while nothing is answered: nothing more is sent.
    for (let i = 0; i < 50; i++)
      expect(refusedByCap(await refusal(store.claim(`later${i}`, 60_000)))).toBe(true);
    // The client writes in order: once a command sent after them arrived, every SET the store sent has.
    connection.sentinel();
    await vi.waitFor(() => expect(silent.count("ECHO")).toBe(1), { timeout: 10_000, interval: 20 });
    expect(silent.count("SET")).toBe(maxInFlight);
  });
});

describe("the cap on commands in flight", () => {
  it("frees a command's place when the client settles it, however long after the store gave up", async () => {
    const pending: ((reply: unknown) => void)[] = [];
    const client = {
      sendCommand: (args: string[]) =>
        new Promise<unknown>((resolve) => pending.push(() => resolve(args[0] === "SET" ? "OK" : null))),
    };
    const store = new RedisDedupeStore(client, { timeoutMs: 10, leaseMs: 20, maxInFlight: 2 });
    await refusal(store.claim("a", 1_000));
    await refusal(store.claim("b", 1_000));
    expect(pending).toHaveLength(2);
    expect(refusedByCap(await refusal(store.claim("c", 1_000)))).toBe(true);
    expect(pending).toHaveLength(2);
    // Redis answers at last: the places are free again.
    for (const answer of pending.splice(0)) answer(undefined);
    await new Promise((resolve) => setImmediate(resolve));
    const late = store.claim("d", 1_000);
    expect(pending).toHaveLength(1);
    pending.shift()!(undefined); // SET NX: OK, in the same turn, before the timeout can fire
    expect(await late).toBe(true);
    expect(pending).toHaveLength(1); // SET XX, the confirmation
  });

  it("frees a place when the client fails the command, or throws at once", async () => {
    let calls = 0;
    const client = {
      call: (): Promise<unknown> => {
        calls++;
        if (calls % 2) throw new Error("no connection");
        return Promise.reject(new Error("closed"));
      },
    };
    const store = new RedisDedupeStore(client, { timeoutMs: 10, leaseMs: 20, maxInFlight: 1 });
    for (let i = 0; i < 20; i++) {
      const answer = await refusal(store.claim(`k${i}`, 1_000));
      expect(answer).toBeInstanceOf(DeliveryNotRecordedError);
      expect(refusedByCap(answer)).toBe(false);
    }
    expect(calls).toBe(20);
  });

  it("is 1,000 by default, and must be a whole number of at least 1", () => {
    const client = { sendCommand: async () => "OK" };
    expect(DEFAULT_MAX_IN_FLIGHT).toBe(1_000);
    for (const maxInFlight of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10" as unknown as number])
      expect(() => new RedisDedupeStore(client, { maxInFlight }), String(maxInFlight)).toThrow(/maxInFlight/);
    expect(() => new RedisDedupeStore(client, { maxInFlight: 1 })).not.toThrow();
  });

  it("refuses an ioredis client with commandTimeout: it fails a command but keeps it queued, out of the cap's sight", () => {
    const call = async () => "OK";
    const io = new Redis({ lazyConnect: true, commandTimeout: 1_000 });
    try {
      expect(() => new RedisDedupeStore(io)).toThrow(/without commandTimeout/);
    } finally {
      io.disconnect();
    }
    // A Cluster carries it in redisOptions.
    expect(
      () => new RedisDedupeStore({ call, options: { redisOptions: { commandTimeout: 500 } } } as never),
    ).toThrow(/without commandTimeout/);
    const plain = new Redis({ lazyConnect: true, socketTimeout: 1_000 });
    try {
      expect(() => new RedisDedupeStore(plain)).not.toThrow();
    } finally {
      plain.disconnect();
    }
  });
});
