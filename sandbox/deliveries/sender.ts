// Deliveries' POSTs go out from a thread of their own (worker.ts): reading a hundred
// receivers' answers, and opening their connections, took the time of the thread that answers the
// API, so that creating records with many receivers registered was as slow as delivering to all of
// them. This side keeps what each POST waits for; a thread that stops fails what it held, and the
// next POST starts a new one. Where no thread can be started, the POSTs are made here.
import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../../src/worker-thread.js";
import type { FromSender, ToSender } from "./messages.js";
import type { PostInFlight, PostOutcome } from "./post.js";
import { ReceiverPosts } from "./receiver-posts.js";

const NO_ANSWER: PostOutcome = { status: null, error: "connection" };

const emptyBatch = (): ToSender => ({ bodies: [], posts: [], aborts: [], retire: [] });

/** The delivery thread as the sandbox starts it: worker.ts beside this file. */
const deliveryThread = (): Worker => startModuleWorker(import.meta.url, "worker");

export class DeliverySender {
  private worker: Worker | undefined;
  /** The POSTs made on this thread, once a delivery thread could not be started. */
  private here: ReceiverPosts | undefined;
  /** POSTs ordered and not yet ended, by id: how to settle each. */
  private readonly waiting = new Map<number, (outcome: PostOutcome) => void>();
  private batch = emptyBatch();
  /** Each body's index in the batch, so that one sent to many receivers is sent once. */
  private bodyIndex = new Map<string, number>();
  private flushing = false;
  private nextId = 1;
  private closed = false;

  /** `startThread` starts the delivery thread (a test may pass one that throws, as Node does when threads are refused). */
  constructor(private readonly startThread: () => Worker = deliveryThread) {}

  /** POST `body` to `url` from the delivery thread, on `receiverId`'s kept connections. */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
    receiverId: string,
  ): PostInFlight {
    let settle: (outcome: PostOutcome) => void = () => {};
    const done = new Promise<PostOutcome>((resolve) => (settle = resolve));
    if (this.closed) {
      settle(NO_ANSWER);
      return { done, abort: () => {} };
    }
    const id = this.nextId++;
    this.waiting.set(id, settle);
    let index = this.bodyIndex.get(body);
    if (index === undefined) {
      index = this.batch.bodies.push(body) - 1;
      this.bodyIndex.set(body, index);
    }
    const order = { id, url, headers, body: index, timeoutMs, receiver: receiverId };
    this.batch.posts.push(order);
    this.flushSoon();
    const abort = (): void => {
      if (!this.waiting.delete(id)) return;
      settle(NO_ANSWER);
      // Not sent yet: it never will be. Else the thread ends it.
      const unsent = this.batch.posts.indexOf(order);
      if (unsent >= 0) this.batch.posts.splice(unsent, 1);
      else this.batch.aborts.push(id);
      this.flushSoon();
    };
    return { done, abort };
  }

  /** Close a receiver's kept connections once its POSTs in flight have ended. */
  retire(receiverId: string): void {
    if (this.closed) return;
    this.batch.retire.push(receiverId);
    this.flushSoon();
  }

  /** Fail every POST still waiting and stop the thread. */
  async close(): Promise<void> {
    this.closed = true;
    this.failWaiting();
    this.here?.close();
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  /** Send the batch once the current work is done, so that what it orders goes in one message. */
  private flushSoon(): void {
    if (this.flushing) return;
    this.flushing = true;
    queueMicrotask(() => {
      this.flushing = false;
      const batch = this.batch;
      this.batch = emptyBatch();
      this.bodyIndex = new Map();
      if (!this.closed) this.deliver(batch);
    });
  }

  /** Hand a batch to the delivery thread (started when it orders POSTs), or to this thread's own POSTs. */
  private deliver(batch: ToSender): void {
    const worker = this.here
      ? undefined
      : (this.worker ?? (batch.posts.length > 0 ? this.thread() : undefined));
    if (worker) {
      worker.postMessage(batch);
      return;
    }
    // No thread and nothing to post: what it would abort or close went with the thread that stopped.
    this.here?.apply(batch);
  }

  /** The delivery thread, started on first use and again after one stops; undefined when none can start. */
  private thread(): Worker | undefined {
    let worker: Worker;
    try {
      worker = this.startThread();
    } catch {
      // Threads refused (Node's permission model without --allow-worker): the POSTs are made here.
      this.here = new ReceiverPosts((id, outcome) => this.ended(id, outcome));
      return undefined;
    }
    // The servers keep the process alive, not deliveries in flight.
    worker.unref();
    worker.on("message", (outcomes: FromSender) => {
      for (const { id, outcome } of outcomes) this.ended(id, outcome);
    });
    const stopped = (): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // What it held gets no answer: those attempts count as unanswered and are retried.
      this.failWaiting();
    };
    worker.on("error", stopped);
    worker.on("exit", stopped);
    this.worker = worker;
    return worker;
  }

  private ended(id: number, outcome: PostOutcome): void {
    const settle = this.waiting.get(id);
    this.waiting.delete(id);
    settle?.(outcome);
  }

  private failWaiting(): void {
    const settles = [...this.waiting.values()];
    this.waiting.clear();
    for (const settle of settles) settle(NO_ANSWER);
  }
}
