// The proxy's memory is one budget of bytes for all its exchanges, not a limit per exchange: with a
// small budget, many exchanges with large bodies in flight all complete, byte for byte, each checked
// on the bodies it carried, and what is counted never passes the budget (its high-water mark). When
// the budget is spent, an exchange waits, its stream paused, until bytes are given back (shown with
// an upstream the test holds), and the oldest exchange may always finish, so waiting never deadlocks.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ByteBudget } from "../../conformance/proxy/budget.js";
import { type RunningProxy, startProxy } from "../../conformance/proxy/proxy.js";
import type { ConformanceChecker } from "../../conformance/run/open-checker.js";
import type { Exchange } from "../../conformance/traffic/exchange.js";

const KIB = 1024;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** Bytes that differ by position and by seed: a body cut, doubled or mixed with another shows. */
const bodyOf = (seed: number, size: number) => {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return bytes;
};

async function upstreamOf(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer(handle);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closing.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** A checker that keeps what it was given: the bodies each exchange was checked on. */
function keepingChecker(seen: Exchange[]): ConformanceChecker {
  return { checkExchange: (x: Exchange) => void seen.push(x) } as unknown as ConformanceChecker;
}

async function proxyTo(
  upstream: string,
  captureBytes: number,
  memoryBytes: number,
  seen: Exchange[],
  onMemoryWait?: () => void,
): Promise<RunningProxy> {
  const proxy = await startProxy({
    upstream: new URL(upstream),
    checker: keepingChecker(seen),
    port: 0,
    captureBytes,
    memoryBytes,
    ...(onMemoryWait ? { onMemoryWait } : {}),
  });
  closing.push(() => proxy.close());
  return proxy;
}

const bytesOf = (x: Exchange | undefined, side: "request" | "response") => {
  const body = x?.[side]?.body;
  return body?.kind === "bytes" ? Buffer.from(body.bytes) : undefined;
};

describe("the proxy's one budget of bytes", () => {
  it("completes many concurrent exchanges with large bodies, byte for byte, within a small budget", async () => {
    const upstream = await upstreamOf((req, res) => {
      const seed = Number(req.url?.split("/").pop());
      req.resume();
      req.on("end", () =>
        res
          .writeHead(200, { "content-type": "application/octet-stream" })
          .end(bodyOf(seed + 1000, 150 * KIB)),
      );
    });
    const seen: Exchange[] = [];
    const capture = 256 * KIB;
    const total = 3 * capture + 256 * KIB;
    const proxy = await proxyTo(upstream, capture, total, seen);
    const n = 40;
    const answers = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const response = await fetch(`${proxy.url}/x/${i}`, {
          method: "POST",
          headers: { "content-type": "application/octet-stream" },
          body: new Uint8Array(bodyOf(i, 100 * KIB)),
        });
        return { i, status: response.status, body: Buffer.from(await response.arrayBuffer()) };
      }),
    );
    for (const { i, status, body } of answers) {
      expect(status).toBe(200);
      expect(body.equals(bodyOf(i + 1000, 150 * KIB))).toBe(true);
    }
    await proxy.close();
    // Every exchange was checked on the very bodies it carried.
    expect(seen).toHaveLength(n);
    for (const x of seen) {
      const i = Number(x.request.path.split("/").pop());
      expect(bytesOf(x, "request")?.equals(bodyOf(i, 100 * KIB))).toBe(true);
      expect(bytesOf(x, "response")?.equals(bodyOf(i + 1000, 150 * KIB))).toBe(true);
    }
    expect(proxy.memory.highWaterBytes).toBeGreaterThan(0);
    expect(proxy.memory.highWaterBytes).toBeLessThanOrEqual(total);
    expect(proxy.memory.usedBytes).toBe(0);
  });

  it("pauses an answer while the budget is spent, and passes it on whole once bytes are given back", async () => {
    let finishA = (): void => undefined;
    const upstream = await upstreamOf((req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      if (req.url === "/a") {
        // The first exchange's answer begins, then is held by the test.
        res.write(bodyOf(1, 10 * KIB));
        finishA = () => res.end(bodyOf(2, 10 * KIB));
      } else res.end(bodyOf(3, 50 * KIB));
    });
    const capture = 64 * KIB;
    let waited = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (waited = resolve));
    // Exactly one exchange's share: while the first is under way, no other may hold a byte.
    const seen: Exchange[] = [];
    const proxy = await proxyTo(upstream, capture, 3 * capture, seen, () => waited());

    const a = await fetch(`${proxy.url}/a`);
    const aReader = a.body!.getReader();
    const aFirst = await aReader.read();
    expect(aFirst.value?.length).toBeGreaterThan(0);

    const b = { received: 0, ended: false, chunks: [] as Buffer[] };
    const bDone = fetch(`${proxy.url}/b`).then(async (response) => {
      const reader = response.body!.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        b.received += r.value.length;
        b.chunks.push(Buffer.from(r.value));
      }
      b.ended = true;
    });
    // Had it not waited, it would have been passed on whole (as with a limit per exchange alone).
    await Promise.race([waiting, bDone.then(() => Promise.reject(new Error("the answer did not wait")))]);
    // The second answer waits in the proxy's tap: not a byte of it passed, and nothing uncounted is held.
    expect(proxy.memory.waitingCount).toBe(1);
    expect(b.received).toBe(0);
    expect(b.ended).toBe(false);
    expect(proxy.memory.usedBytes).toBeLessThanOrEqual(3 * capture);

    finishA();
    const rest: Buffer[] = [Buffer.from(aFirst.value!)];
    for (let r = await aReader.read(); !r.done; r = await aReader.read()) rest.push(Buffer.from(r.value));
    expect(Buffer.concat(rest).equals(Buffer.concat([bodyOf(1, 10 * KIB), bodyOf(2, 10 * KIB)]))).toBe(true);
    await bDone;
    expect(Buffer.concat(b.chunks).equals(bodyOf(3, 50 * KIB))).toBe(true);
    await proxy.close();
    expect(seen).toHaveLength(2);
    expect(proxy.memory.highWaterBytes).toBeLessThanOrEqual(3 * capture);
    expect(proxy.memory.usedBytes).toBe(0);
  });

  it("pauses reading a request's body while the budget is spent: the service gets none of it until then", async () => {
    let finishA = (): void => undefined;
    const got = { b: 0 };
    const upstream = await upstreamOf((req, res) => {
      if (req.url === "/a") {
        res.writeHead(200).write(bodyOf(1, 10 * KIB));
        finishA = () => res.end();
        return;
      }
      req.on("data", (chunk: Buffer) => (got.b += chunk.length));
      req.on("end", () => res.writeHead(204).end());
    });
    const capture = 64 * KIB;
    let waited = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (waited = resolve));
    const seen: Exchange[] = [];
    const proxy = await proxyTo(upstream, capture, 3 * capture, seen, () => waited());
    const a = await fetch(`${proxy.url}/a`);
    const aReader = a.body!.getReader();
    await aReader.read();
    const upload = bodyOf(4, 40 * KIB);
    const bDone = fetch(`${proxy.url}/b`, { method: "POST", body: new Uint8Array(upload) });
    await Promise.race([waiting, bDone.then(() => Promise.reject(new Error("the request did not wait")))]);
    expect(got.b).toBe(0);
    finishA();
    while (!(await aReader.read()).done);
    expect((await bDone).status).toBe(204);
    expect(got.b).toBe(upload.length);
    await proxy.close();
    const checked = seen.find((x) => x.request.path === "/b");
    expect(bytesOf(checked, "request")?.equals(upload)).toBe(true);
    expect(proxy.memory.highWaterBytes).toBeLessThanOrEqual(3 * capture);
  });

  it("refuses a budget that cannot hold one exchange's bodies", async () => {
    await expect(
      startProxy({
        upstream: new URL("http://127.0.0.1:9"),
        checker: keepingChecker([]),
        port: 0,
        captureBytes: 64 * KIB,
        memoryBytes: 3 * 64 * KIB - 1,
      }),
    ).rejects.toThrow(RangeError);
  });
});

describe("ByteBudget", () => {
  it("lets the oldest holder take its whole share while the others together keep within the rest", async () => {
    const budget = new ByteBudget(100, 60);
    const oldest = budget.open();
    const young = budget.open();
    expect(young.tryTake(40)).toBe(true);
    expect(young.tryTake(1)).toBe(false);
    expect(oldest.tryTake(60)).toBe(true);
    expect(budget.usedBytes).toBe(100);
    const later = young.take(20);
    oldest.endUse();
    // The young one is now the oldest: it may take up to its share.
    expect(await later).toBe(true);
    expect(young.held).toBe(60);
    const third = budget.open();
    const granted = third.take(1);
    young.endUse();
    expect(await granted).toBe(true);
    third.endUse();
    expect(budget.usedBytes).toBe(0);
    expect(budget.highWaterBytes).toBe(100);
  });

  it("answers a wait false when its holder closes, and refuses more than one holder's share", async () => {
    const budget = new ByteBudget(100, 60);
    const oldest = budget.open();
    const young = budget.open();
    oldest.tryTake(60);
    const wait = young.take(50);
    young.endUse();
    expect(await wait).toBe(false);
    expect(await oldest.take(1)).toBe(false);
    expect(budget.usedBytes).toBe(60);
  });

  it("never deadlocks and never passes its total, whatever the holders take and when they finish (property)", async () => {
    const holderPlan = fc.record({
      pieces: fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 6 }),
      startAfter: fc.nat({ max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 90 }),
        fc.array(holderPlan, { minLength: 1, maxLength: 8 }),
        async (slack, plans) => {
          const per = 60;
          const budget = new ByteBudget(per + slack, per);
          let finished = 0;
          const runs = plans.map(async (plan) => {
            for (let i = 0; i < plan.startAfter; i++) await Promise.resolve();
            const holder = budget.open();
            let held = 0;
            for (const piece of plan.pieces) {
              // A holder never asks past its share: it stops there, as a capture drops its copy.
              if (held + piece > per) break;
              expect(await holder.take(piece)).toBe(true);
              held += piece;
              expect(budget.usedBytes).toBeLessThanOrEqual(per + slack);
            }
            holder.endUse();
            finished++;
          });
          // Every step is a microtask: once they have all run (a macrotask later), a holder still
          // waiting would wait forever.
          await new Promise((resolve) => setImmediate(resolve));
          expect(finished).toBe(plans.length);
          await Promise.all(runs);
          expect(budget.usedBytes).toBe(0);
          expect(budget.highWaterBytes).toBeLessThanOrEqual(per + slack);
        },
      ),
      { numRuns: 200 },
    );
  });
});
