// Deliveries' POSTs on connections kept per receiver: what the delivery thread runs, and what the
// sandbox runs itself where no thread can be started (a permission model that refuses threads).
import type { Agent } from "node:http";
import type { PostOrder, ToSender } from "./messages.js";
import { type PostInFlight, type PostOutcome, postOnce, receiverAgent } from "./post.js";

export class ReceiverPosts {
  /** Per receiver: its kept connections, its POSTs in flight, and whether it was removed. */
  private readonly receivers = new Map<string, { agent: Agent; inFlight: number; retired: boolean }>();
  private readonly posts = new Map<number, PostInFlight>();

  /** `ended` hears how each POST ended, once. */
  constructor(private readonly ended: (id: number, outcome: PostOutcome) => void) {}

  /** Carry out a batch: its POSTs (each event's body made into bytes once), then its aborts and removals. */
  apply(batch: ToSender): void {
    const payloads = batch.bodies.map((body) => Buffer.from(body, "utf8"));
    for (const order of batch.posts) this.start(order, payloads[order.body] as Buffer);
    for (const id of batch.aborts) this.abort(id);
    for (const receiverId of batch.retire) this.retire(receiverId);
  }

  /** Make the POST `order` describes, with `payload` as its body. */
  private start(order: PostOrder, payload: Buffer): void {
    let receiver = this.receivers.get(order.receiver);
    if (!receiver) {
      receiver = { agent: receiverAgent(order.url), inFlight: 0, retired: false };
      this.receivers.set(order.receiver, receiver);
    }
    const kept = receiver;
    kept.inFlight++;
    const post = postOnce(order.url, order.headers, payload, order.timeoutMs, kept.agent);
    this.posts.set(order.id, post);
    void post.done.then((outcome) => {
      this.posts.delete(order.id);
      if (--kept.inFlight === 0 && kept.retired) this.retire(order.receiver);
      this.ended(order.id, outcome);
    });
  }

  /** End a POST in flight at once (its outcome: no answer). */
  private abort(id: number): void {
    this.posts.get(id)?.abort();
  }

  /** Close a receiver's kept connections, once its POSTs in flight have ended. */
  retire(receiverId: string): void {
    const receiver = this.receivers.get(receiverId);
    if (!receiver) return;
    receiver.retired = true;
    if (receiver.inFlight > 0) return;
    receiver.agent.destroy();
    this.receivers.delete(receiverId);
  }

  /** Abort every POST and close every connection. */
  close(): void {
    for (const post of this.posts.values()) post.abort();
    for (const { agent } of this.receivers.values()) agent.destroy();
    this.receivers.clear();
  }
}
