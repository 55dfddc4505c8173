// Deliveries' POSTs go out from a thread of their own (delivery-worker.ts): reading a hundred
// receivers' answers, and opening their connections, took the time of the thread that answers the
// API, so that creating records with many receivers registered was as slow as delivering to all of
// them. This side keeps what each POST waits for; a thread that stops fails what it held, and the
// next POST starts a new one.
import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../src/worker-thread.js";
import type { FromSender, ToSender } from "./delivery-messages.js";
import type { PostInFlight, PostOutcome } from "./delivery-post.js";

const NO_ANSWER: PostOutcome = { status: null, error: "connection" };

export class DeliverySender {
  private worker: Worker | undefined;
  /** POSTs ordered and not yet ended, by id: how to settle each. */
  private readonly waiting = new Map<number, (outcome: PostOutcome) => void>();
  private batch: ToSender = { posts: [], aborts: [], retire: [] };
  private flushing = false;
  private nextId = 1;
  private closed = false;

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
    this.batch.posts.push({ id, url, headers, body, timeoutMs, receiver: receiverId });
    this.flushSoon();
    const abort = (): void => {
      if (!this.waiting.delete(id)) return;
      settle(NO_ANSWER);
      this.batch.aborts.push(id);
      this.flushSoon();
    };
    return { done, abort };
  }

  /** Close a receiver's kept connections once its POSTs in flight have ended. */
  retire(receiverId: string): void {
    if (!this.worker || this.closed) return;
    this.batch.retire.push(receiverId);
    this.flushSoon();
  }

  /** Fail every POST still waiting and stop the thread. */
  async close(): Promise<void> {
    this.closed = true;
    this.failWaiting();
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
      this.batch = { posts: [], aborts: [], retire: [] };
      if (this.closed || batch.posts.length + batch.aborts.length + batch.retire.length === 0) return;
      this.thread().postMessage(batch);
    });
  }

  /** The delivery thread, started on first use and again after one stops. */
  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(import.meta.url, "delivery-worker");
    // The servers keep the process alive, not deliveries in flight.
    worker.unref();
    worker.on("message", (outcomes: FromSender) => {
      for (const { id, outcome } of outcomes) {
        const settle = this.waiting.get(id);
        this.waiting.delete(id);
        settle?.(outcome);
      }
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

  private failWaiting(): void {
    const settles = [...this.waiting.values()];
    this.waiting.clear();
    for (const settle of settles) settle(NO_ANSWER);
  }
}
