// createSandbox()'s handler receivers are held only while their receiver is registered: removed
// (DELETE, a reset with receivers) or closed, a handler is unreachable at once, by its own sandbox
// and any other, and is garbage once the test drops it; a handler added after close() is refused.
// Garbage is observed with a real collection: V8's gc() exposed at run time (setFlagsFromString),
// which a WeakRef to the handler then tells. And its fetch answers a query name repeated as long as
// Node's parser would let it through, and refuses a longer target with 414.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type InProcessSandbox, type ReceiverHandler } from "../../sandbox/index.js";
import { liveReceiverHandlers } from "../../sandbox/deliveries/in-process-receivers.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const KEY = { key: "k-handlers", secret: "s-handlers" };
const open: InProcessSandbox[] = [];
afterEach(async () => {
  for (const one of open.splice(0)) await one.close();
});

async function sandboxOf(): Promise<InProcessSandbox> {
  const sandbox = await createSandbox(KEY);
  open.push(sandbox);
  return sandbox;
}

/** A handler that holds 1 MiB, as one that collected a test's deliveries would. */
function heavyHandler(): ReceiverHandler {
  const held = Buffer.alloc(1024 * 1024, 1);
  return () => new Response(null, { status: held.length > 0 ? 204 : 500 });
}

/**
 * Add a heavy handler, keeping only a WeakRef to it: made in a frame of its own, as a test's
 * suspended frame keeps what its registers last held.
 */
async function addHeld(sandbox: InProcessSandbox) {
  const handler = heavyHandler();
  const ref = new WeakRef(handler);
  return { ref, receiver: await sandbox.receivers.add(handler) };
}

/** Whether nothing holds what `ref` points at once a collection has run (after this job: WeakRefs hold until then). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 3 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref.deref() === undefined;
}

/** Whether another sandbox, given `url` as a receiver, reaches a handler there (its Test button). */
async function reachable(url: string): Promise<boolean> {
  const other = await sandboxOf();
  const receiver = await other.control.addReceiver({ url });
  return (await other.control.testReceiver(receiver.id)).status !== null;
}

describe("a handler receiver", () => {
  it("removed through the control API is reached by no one, and held by nothing", async () => {
    const sandbox = await sandboxOf();
    const before = liveReceiverHandlers();
    const refs: WeakRef<object>[] = [];
    let last = "";
    // More than MAX_RECEIVERS: each one removed must make room, and leave nothing behind.
    for (let i = 0; i < 150; i++) {
      const { ref, receiver } = await addHeld(sandbox);
      refs.push(ref);
      expect((await sandbox.control.testReceiver(receiver.id)).status).toBe(204);
      await sandbox.control.removeReceiver(receiver.id);
      last = receiver.url;
    }
    expect(liveReceiverHandlers()).toBe(before);
    expect(await reachable(last)).toBe(false);
    const alive: number[] = [];
    for (const [i, ref] of refs.entries()) if (!(await collected(ref))) alive.push(i);
    expect(alive).toEqual([]);
  });

  it("removed by a reset with receivers is reached by no one; one kept by a plain reset still is", async () => {
    const sandbox = await sandboxOf();
    const kept = await sandbox.receivers.add(() => new Response(null, { status: 202 }));
    await sandbox.control.reset();
    expect(await reachable(kept.url)).toBe(true);
    const { ref, receiver: gone } = await addHeld(sandbox);
    await sandbox.control.reset({ receivers: true });
    expect(await reachable(gone.url)).toBe(false);
    expect(await reachable(kept.url)).toBe(false);
    expect(await collected(ref)).toBe(true);
  });

  it("is refused once close() was called, and none added before outlives the sandbox", async () => {
    const sandbox = await createSandbox(KEY);
    const before = liveReceiverHandlers();
    const added = await sandbox.receivers.add(heavyHandler());
    const closing = sandbox.close();
    await expect(sandbox.receivers.add(heavyHandler())).rejects.toThrow(
      "receivers.add: the sandbox is closed",
    );
    await closing;
    await expect(sandbox.receivers.add(heavyHandler())).rejects.toThrow(
      "receivers.add: the sandbox is closed",
    );
    expect(liveReceiverHandlers()).toBe(before);
    expect(await reachable(added.url)).toBe(false);
  });

  it("being added when close() is called is forgotten, and its add() rejects", async () => {
    const sandbox = await createSandbox(KEY);
    const before = liveReceiverHandlers();
    const adding = sandbox.receivers.add(heavyHandler());
    const closing = sandbox.close();
    await expect(adding).rejects.toThrow(/receivers\.add: the sandbox (is closed|closed while)/);
    await closing;
    expect(liveReceiverHandlers()).toBe(before);
  });
});

describe("the in-process fetch's query", () => {
  it("answers a name repeated up to 16 KiB of target, and a longer target with 414", async () => {
    const sandbox = await sandboxOf();
    const repeated = (n: number) => `${sandbox.url}/_sandbox/deliveries?${Array(n).fill("a").join("&")}`;
    // 8,000 repeats: 16,000 bytes of query, as many as Node's parser lets through over HTTP.
    const fits = await sandbox.fetch(repeated(8_000));
    expect(fits.status).toBe(200);
    const over = await sandbox.fetch(repeated(20_000));
    expect(over.status).toBe(414);
    expect(await over.json()).toMatchObject({ message: "The request target is longer than 16 KiB." });
  });
});
