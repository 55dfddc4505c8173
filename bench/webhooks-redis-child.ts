// One receiver of the Redis deduper benchmark: the README's receiver, compiled, in a process of its
// own, with the store named on the command line and the client options docs/webhooks.md gives.
//   node webhooks-redis-child.js <memory|node-redis|ioredis> <redis port> <token>
// Prints `listening <port>`; on SIGTERM (or stdin closing) prints `handled <n>` (events processed) and exits.
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { createReceiver } from "../examples/webhook-receiver.js";
import { createDeduper, type Deduper, RedisDedupeStore } from "../src/webhooks/index.js";

const [store, redisPort, token] = process.argv.slice(2);
let deduper: Deduper | undefined;
let close = () => {};
if (store === "node-redis") {
  const client = createClient({
    socket: { host: "127.0.0.1", port: Number(redisPort), connectTimeout: 1_000 },
    disableOfflineQueue: true,
    commandsQueueMaxLength: 1_000,
  });
  client.on("error", (e: Error) => console.error(`redis: ${e.name}`));
  await client.connect();
  deduper = createDeduper({ store: new RedisDedupeStore(client, { prefix: "bench:" }) });
  close = () => client.destroy();
} else if (store === "ioredis") {
  const client = new Redis({
    host: "127.0.0.1",
    port: Number(redisPort),
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    socketTimeout: 2_000,
    connectTimeout: 1_000,
  });
  client.on("error", (e: Error) => console.error(`redis: ${e.name}`));
  await client.connect();
  deduper = createDeduper({ store: new RedisDedupeStore(client, { prefix: "bench:" }) });
  close = () => client.disconnect();
}

let handled = 0;
const receiver = createReceiver({
  credentials: { scheme: "bearer", token: token! },
  workflowPath: "/cases/bench",
  ...(deduper ? { deduper } : {}),
  handle: () => {
    handled++;
  },
});
receiver.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(receiver.address() as AddressInfo).port}\n`);
});
function shutdown() {
  receiver.close();
  receiver.closeAllConnections();
  close();
  process.stdout.write(`handled ${handled}\n`, () => process.exit(0));
}
process.once("SIGTERM", shutdown);
// The benchmark holds stdin open: should it end without stopping this process, so do we.
process.stdin.once("end", shutdown).resume();
