// One instance of the README's receiver, in a process of its own, deduplicating through Redis:
//   node --import tsx test/support/redis-receiver.ts <node-redis|ioredis> <redis port> <token> <workflow path> [retention ms]
// Prints `listening <port>` once it accepts deliveries, then `handled <deliveryKey>` for each
// event it processes (keys: no personal data). Ends on SIGTERM, or when its stdin closes.
import type { AddressInfo } from "node:net";
import { createReceiver } from "../../examples/webhook-receiver.js";
import { createDeduper, deliveryKey, RedisDedupeStore } from "../../src/webhooks/index.js";
import { connectClient, type Library, TEST_TIMEOUT_MS } from "./redis-server.js";

const [library, redisPort, token, workflowPath, retentionMs] = process.argv.slice(2);
const { client, close } = await connectClient(library as Library, Number(redisPort));
const store = new RedisDedupeStore(client, {
  prefix: "test:receivers:",
  timeoutMs: TEST_TIMEOUT_MS,
  leaseMs: 3 * TEST_TIMEOUT_MS,
});
const receiver = createReceiver({
  credentials: { scheme: "bearer", token: token! },
  workflowPath: workflowPath!,
  deduper: createDeduper({ store, ...(retentionMs ? { retentionMs: Number(retentionMs) } : {}) }),
  handle: (event) => {
    process.stdout.write(`handled ${deliveryKey(event)}\n`);
  },
});
receiver.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(receiver.address() as AddressInfo).port}\n`);
});
function shutdown() {
  receiver.close();
  receiver.closeAllConnections();
  void close();
  process.stdin.destroy();
}
process.once("SIGTERM", shutdown);
// The test holds stdin open: should it end without stopping this process, stdin closes and so do we.
process.stdin.on("end", shutdown).resume();
