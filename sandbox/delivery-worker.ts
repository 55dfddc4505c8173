// The delivery thread: makes the POSTs the API's thread orders, keeping each receiver's connections
// open between them, and answers with each outcome. The receivers' answers are read here, so that
// their bytes cost the thread that answers the API nothing.
import type { Agent } from "node:http";
import { parentPort } from "node:worker_threads";
import type { FromSender, PostOrder, ToSender } from "./delivery-messages.js";
import { type PostInFlight, postOnce, receiverAgent } from "./delivery-post.js";

const port = parentPort;
if (!port) throw new Error("delivery-worker runs as a worker thread");

/** Per receiver: its kept connections and its POSTs in flight. */
const receivers = new Map<string, { agent: Agent; inFlight: number; retired: boolean }>();
const posts = new Map<number, PostInFlight>();
let outbox: FromSender = [];

function send(): void {
  const batch = outbox;
  outbox = [];
  port?.postMessage(batch);
}

function start(order: PostOrder): void {
  let receiver = receivers.get(order.receiver);
  if (!receiver) {
    receiver = { agent: receiverAgent(order.url), inFlight: 0, retired: false };
    receivers.set(order.receiver, receiver);
  }
  const kept = receiver;
  kept.inFlight++;
  const post = postOnce(order.url, order.headers, order.body, order.timeoutMs, kept.agent);
  posts.set(order.id, post);
  void post.done.then((outcome) => {
    posts.delete(order.id);
    if (--kept.inFlight === 0 && kept.retired) retire(order.receiver);
    if (outbox.length === 0) setImmediate(send);
    outbox.push({ id: order.id, outcome });
  });
}

/** Close a receiver's kept connections, once its POSTs in flight have ended. */
function retire(receiverId: string): void {
  const receiver = receivers.get(receiverId);
  if (!receiver) return;
  receiver.retired = true;
  if (receiver.inFlight > 0) return;
  receiver.agent.destroy();
  receivers.delete(receiverId);
}

port.on("message", (message: ToSender) => {
  for (const id of message.aborts) posts.get(id)?.abort();
  for (const order of message.posts) start(order);
  for (const receiverId of message.retire) retire(receiverId);
});
