// Deliveries go out from a thread of their own, on connections kept open per receiver: fewer
// connections than attempts, every answer read as the answer to its own POST whatever the receiver
// does with the connection after it, a kept connection closed by the receiver not counted as a
// failure, and a delivery thread that stops failing only what it held.
import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, createServer, type Socket } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Delivery, DeliveryQueue, MAX_IN_FLIGHT_BYTES } from "../../sandbox/deliveries/queue.js";
import { DeliverySender } from "../../sandbox/deliveries/sender.js";
import { queueOnClock } from "../support/delivery-queue.js";
import { until } from "../support/sandbox.js";

/** An HTTP receiver: `answer` decides each request's reply; it counts requests and connections. */
async function receiver(answer: (body: string, req: IncomingMessage, res: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const bodies: string[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      bodies.push(body);
      answer(body, req, res);
    });
  });
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

const attempted = (ds: Delivery[]) => () => ds.every((d) => d.attempts.length > 0);
/** The last `n` deliveries a queue keeps (one receiver: the last `n` events emitted). */
const latest = (queue: DeliveryQueue, n: number) => queue.list().slice(-n);

describe("kept connections", () => {
  it("40 deliveries to one receiver take at most four connections, each answered in turn", async () => {
    const got = await receiver((_body, _req, res) => res.end());
    const { queue, clock, close } = queueOnClock();
    try {
      queue.addReceiver(got.url, "events");
      for (let i = 0; i < 40; i++)
        queue.emit("events", "biometricWebhook", "created", `s-${i % 8}`, `{"n":${i}}`);
      const made = queue.list();
      clock.run();
      await until(attempted(made));
      expect(made.every((d) => d.status === "delivered" && d.attempts.length === 1)).toBe(true);
      expect(got.bodies).toHaveLength(40);
      // One connection an attempt before: 40.
      expect(got.connections()).toBeLessThanOrEqual(4);
    } finally {
      await close();
      await got.close();
    }
  });

  it("a kept connection the receiver drops as the next POST arrives: that POST goes again, once, on a new one", async () => {
    // Raw sockets: the first request on a connection is answered and the connection kept; a second
    // request on it is met by closing it unanswered, as a receiver's idle timeout would.
    const seen = new Map<Socket, number>();
    let requests = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
      let data = "";
      socket.on("data", (chunk) => {
        data += chunk.toString("latin1");
        const head = data.indexOf("\r\n\r\n");
        if (head < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(data.slice(0, head))?.[1] ?? 0);
        if (data.length < head + 4 + length) return;
        data = data.slice(head + 4 + length);
        requests++;
        const n = (seen.get(socket) ?? 0) + 1;
        seen.set(socket, n);
        if (n === 1) socket.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nKeep-Alive: timeout=60\r\n\r\n");
        else socket.destroy();
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { queue, clock, close } = queueOnClock();
    try {
      queue.addReceiver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, "events");
      queue.emit("events", "biometricWebhook", "created", "a", "{}");
      const first = latest(queue, 1);
      clock.run();
      await until(attempted(first));
      queue.emit("events", "biometricWebhook", "created", "a", "{}");
      const second = latest(queue, 1);
      clock.run();
      await until(attempted(second));
      expect(second[0]?.attempts).toEqual([expect.objectContaining({ status: 200 })]);
      // The dropped POST, then the same POST on a connection of its own.
      expect(requests).toBe(3);
    } finally {
      await close();
      for (const s of sockets) s.destroy();
      server.close();
    }
  });

  it("every attempt records the answer to its own POST, whatever the receiver does with the connection", async () => {
    type Way = "keep" | "close-header" | "destroy-after" | "late";
    const plan = new Map<string, { status: number; way: Way }>();
    const got = await receiver((body, _req, res) => {
      const step = plan.get(body);
      if (!step) return res.writeHead(418).end();
      const send = () => {
        res.writeHead(step.status, step.way === "close-header" ? { Connection: "close" } : {});
        res.end(body);
        if (step.way === "destroy-after") res.once("finish", () => setImmediate(() => res.socket?.destroy()));
      };
      if (step.way === "late") setTimeout(send, 5);
      else send();
    });
    const { queue, clock, close } = queueOnClock();
    queue.addReceiver(got.url, "events");
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              status: fc.constantFrom(200, 201, 204, 404, 500, 503),
              way: fc.constantFrom<Way>("keep", "close-header", "destroy-after", "late"),
              subject: fc.integer({ min: 0, max: 5 }),
            }),
            { minLength: 1, maxLength: 24 },
          ),
          async (steps) => {
            run++;
            for (const [i, step] of steps.entries()) {
              const body = JSON.stringify({ run, i });
              plan.set(body, step);
              queue.emit("events", "biometricWebhook", "created", `r${run}-${step.subject}`, body);
            }
            const made = latest(queue, steps.length);
            const before = got.bodies.length;
            clock.run();
            await until(attempted(made));
            for (const [i, delivery] of made.entries())
              expect(delivery.attempts[0]?.status).toBe(steps[i]?.status);
            // Each POST reached the receiver once.
            expect(got.bodies.length - before).toBe(steps.length);
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await close();
      await got.close();
    }
  }, 60_000);
});

describe("bytes in flight", () => {
  it("are at most MAX_IN_FLIGHT_BYTES across receivers; a larger delivery goes alone", async () => {
    const silent = await receiver(() => undefined);
    const held = queueOnClock();
    try {
      held.queue.addReceiver(silent.url, "events");
      held.queue.addReceiver(silent.url, "events");
      // 6 MiB each, about four records: two fit in flight, a third would pass the limit.
      const body = JSON.stringify({ pad: "x".repeat(6 * 1024 * 1024) });
      expect(2 * Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_IN_FLIGHT_BYTES);
      expect(3 * Buffer.byteLength(body)).toBeGreaterThan(MAX_IN_FLIGHT_BYTES);
      for (let i = 0; i < 4; i++) held.queue.emit("events", "biometricWebhook", "created", `s-${i}`, body);
      held.clock.run();
      await until(() => silent.bodies.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(silent.bodies).toHaveLength(2);
    } finally {
      await held.close();
    }
    const alone = queueOnClock();
    try {
      alone.queue.addReceiver(silent.url, "events");
      const big = JSON.stringify({ pad: "y".repeat(MAX_IN_FLIGHT_BYTES) });
      alone.queue.emit("events", "biometricWebhook", "created", "big", big);
      alone.clock.run();
      await until(() => silent.bodies.length === 3);
    } finally {
      await alone.close();
      await silent.close();
    }
  }, 30_000);
});

describe("a receiver that answers before it has read the POST", () => {
  it("its connection is not kept: the POSTs after it are sent and answered", async () => {
    // Raw sockets: the answer goes out on the request's head, and the body is never read.
    let connections = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.on("error", () => undefined);
      let head = "";
      const onData = (chunk: Buffer) => {
        head += chunk.toString("latin1");
        if (!head.includes("\r\n\r\n")) return;
        socket.off("data", onData);
        socket.pause();
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nKeep-Alive: timeout=60\r\n\r\n");
      };
      socket.on("data", onData);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const sender = new DeliverySender();
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      // More than the sockets' buffers take: the POST cannot have gone out whole.
      const body = "x".repeat(8 * 1024 * 1024);
      for (let i = 0; i < 6; i++)
        expect(await sender.post(url, {}, body, 3_000, "rcv_1").done).toEqual({ status: 200 });
      expect(connections).toBe(6);
    } finally {
      await sender.close();
      for (const s of sockets) s.destroy();
      server.close();
    }
  }, 30_000);
});

describe("the delivery thread", () => {
  let hang: Awaited<ReturnType<typeof receiver>>;
  let ok: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hang = await receiver(() => undefined);
    ok = await receiver((_b, _r, res) => res.writeHead(202).end());
  });
  afterAll(async () => {
    await hang.close();
    await ok.close();
  });

  it("stopping fails the POSTs it held as unanswered; the next POST starts a new thread", async () => {
    const sender = new DeliverySender();
    try {
      const held = sender.post(hang.url, {}, "{}", 60_000, "rcv_a");
      await until(() => hang.bodies.length === 1);
      const thread = (sender as unknown as { worker: { terminate(): Promise<number> } }).worker;
      await thread.terminate();
      expect(await held.done).toEqual({ status: null, error: "connection" });
      expect(await sender.post(ok.url, {}, "{}", 10_000, "rcv_b").done).toEqual({ status: 202 });
    } finally {
      await sender.close();
    }
  });

  it("an abort before the thread was told: the POST is never sent", async () => {
    const sender = new DeliverySender();
    try {
      const before = ok.bodies.length;
      const aborted = sender.post(ok.url, {}, '{"n":1}', 10_000, "rcv_b");
      aborted.abort();
      expect(await aborted.done).toEqual({ status: null, error: "connection" });
      expect(await sender.post(ok.url, {}, '{"n":2}', 10_000, "rcv_b").done).toEqual({ status: 202 });
      expect(ok.bodies.slice(before)).toEqual(['{"n":2}']);
    } finally {
      await sender.close();
    }
  });

  it("where no thread can start (threads refused), POSTs are made on the sandbox's own thread", async () => {
    const refused = () => {
      throw Object.assign(new Error("Access to this API has been restricted"), { code: "ERR_ACCESS_DENIED" });
    };
    const sender = new DeliverySender(refused);
    try {
      const outcomes = await Promise.all(
        [1, 2, 3].map((n) => sender.post(ok.url, {}, `{"n":${n}}`, 10_000, "rcv_b").done),
      );
      expect(outcomes).toEqual([{ status: 202 }, { status: 202 }, { status: 202 }]);
      const held = sender.post(hang.url, {}, "{}", 60_000, "rcv_a");
      await sender.close();
      expect(await held.done).toEqual({ status: null, error: "connection" });
    } finally {
      await sender.close();
    }
  });

  it("abort and close settle what waits at once, and nothing is sent after close", async () => {
    const sender = new DeliverySender();
    const aborted = sender.post(hang.url, {}, "{}", 60_000, "rcv_a");
    aborted.abort();
    expect(await aborted.done).toEqual({ status: null, error: "connection" });
    const held = sender.post(hang.url, {}, "{}", 60_000, "rcv_a");
    await sender.close();
    expect(await held.done).toEqual({ status: null, error: "connection" });
    const before = ok.bodies.length;
    expect(await sender.post(ok.url, {}, "{}", 10_000, "rcv_b").done).toEqual({
      status: null,
      error: "connection",
    });
    expect(ok.bodies.length).toBe(before);
  });
});
