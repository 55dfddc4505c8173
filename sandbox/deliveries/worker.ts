// The delivery thread: makes the POSTs the API's thread orders, keeping each receiver's connections
// open between them, and answers with each outcome. The receivers' answers are read here, so that
// their bytes cost the thread that answers the API nothing.
import { parentPort } from "node:worker_threads";
import type { FromSender, ToSender } from "./messages.js";
import { ReceiverPosts } from "./receiver-posts.js";

const port = parentPort;
if (!port) throw new Error("deliveries/worker runs as a worker thread");

let outbox: FromSender = [];
const posts = new ReceiverPosts((id, outcome) => {
  if (outbox.length === 0)
    setImmediate(() => {
      const batch = outbox;
      outbox = [];
      port.postMessage(batch);
    });
  outbox.push({ id, outcome });
});

port.on("message", (message: ToSender) => posts.apply(message));
