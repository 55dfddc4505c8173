// A receiver for every webhook of the service on node:http: createWebhookHandler checks the
// credentials, checks the delivery against the contract, records it, acknowledges at once and
// calls the handler afterwards. The workflow case URL carries no credentials: its path is the secret.
import { createServer, type Server } from "node:http";
import {
  createDeduper,
  createWebhookHandler,
  type Deduper,
  type KnownWebhookEvent,
  type ReceiverCredentials,
  type WebhookRefusal,
} from "../src/webhooks/index.js";

export interface ReceiverOptions {
  /** The Basic or Bearer credentials configured with the webhook URL in the developer dashboard. */
  credentials: ReceiverCredentials;
  /** The hard-to-guess path of the workflow case Webhook URL (its deliveries carry no credentials). */
  workflowPath: string;
  /** Processes one new event, after the delivery has been acknowledged. */
  handle: (event: KnownWebhookEvent) => Promise<void> | void;
  /** In memory by default; with several instances, one over a shared store (RedisDedupeStore). */
  deduper?: Deduper;
}

/** Where and why a delivery was refused, never a value from it. */
function logRefusal(refusal: WebhookRefusal): void {
  if (refusal.reason === "malformed") console.warn(`webhook rejected: ${refusal.error.message}`);
  if (refusal.reason === "not_recorded")
    console.warn(`webhook not recorded (${refusal.notRecorded}): answered 503, to be sent again`);
}

/** An HTTP server that receives the service's webhooks. */
export function createReceiver({
  credentials,
  workflowPath,
  handle,
  deduper = createDeduper(),
}: ReceiverOptions): Server {
  const common = { dedupe: deduper, on: handle, onRefused: logRefusal };
  const events = createWebhookHandler({ credentials, ...common });
  const cases = createWebhookHandler({ credentials: "none", ...common });
  return createServer((req, res) => (req.url === workflowPath ? cases : events).node(req, res));
}
