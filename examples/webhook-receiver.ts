// A receiver for every webhook of the service on node:http: it checks the credentials, checks the
// delivery against the contract, records it, acknowledges at once and processes afterwards.
import { createServer, type Server } from "node:http";
import {
  checkReceiverAuth,
  createDeduper,
  type Deduper,
  DeliveryNotRecordedError,
  parseWebhook,
  type ReceiverCredentials,
  type WebhookEvent,
} from "../src/webhooks/index.js";

/** Far above the largest delivery (a completed event is a few kB); caps what a stranger can make us hold. */
const MAX_BODY_BYTES = 1_000_000;

export interface ReceiverOptions {
  /** The Basic or Bearer credentials configured with the webhook URL in the developer dashboard. */
  credentials: ReceiverCredentials;
  /** The hard-to-guess path of the workflow case Webhook URL (its deliveries carry no credentials). */
  workflowPath: string;
  /** Processes one new event, after the delivery has been acknowledged. */
  handle: (event: WebhookEvent) => Promise<void> | void;
  /** In memory by default; with several instances, one over a shared store (RedisDedupeStore). */
  deduper?: Deduper;
}

/** An HTTP server that receives the service's webhooks. */
export function createReceiver({
  credentials,
  workflowPath,
  handle,
  deduper = createDeduper(),
}: ReceiverOptions): Server {
  return createServer((req, res) => {
    const atWorkflowPath = req.url === workflowPath;
    // Refused on the headers alone: the body of a stranger's request is drained, never held.
    const refusal =
      req.method !== "POST"
        ? 405
        : !atWorkflowPath && !checkReceiverAuth(req.headers, credentials).ok
          ? 401
          : undefined;
    if (refusal) return void req.resume().on("end", () => res.writeHead(refusal).end());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
      const { event, error } = parseWebhook(Buffer.concat(chunks), req.headers);
      if (error) {
        console.warn(`webhook rejected: ${error.message}`); // where and why, never a value
        return void res.writeHead(400).end();
      }
      const channel = event.kind === "unknown" ? event.channel : event.kind;
      if (atWorkflowPath !== (channel === "workflowCase")) return void res.writeHead(404).end();
      if (event.kind === "unknown") return void res.writeHead(200).end(); // a new event type: ignored
      deduper
        .isDuplicate(event)
        .then(
          async (duplicate) => {
            res.writeHead(200).end(); // acknowledge at once: a slow answer is retried
            if (!duplicate) await handle(event); // else a retry of a delivery already processed
          },
          (e: unknown) => {
            // Not recorded (the store is down or slow, or another attempt holds the delivery): never
            // acknowledge it, so that the service sends it again.
            const reason = e instanceof DeliveryNotRecordedError ? e.reason : "deduper_failed";
            console.warn(`webhook not recorded (${reason}): answered 503, to be sent again`);
            res.writeHead(503).end();
          },
        )
        .catch((e: unknown) => console.error(`webhook processing failed: ${(e as Error).name}`));
    });
  });
}
