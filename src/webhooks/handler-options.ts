import type { Deduper, NotRecordedReason } from "./dedupe.js";
import type { ReceiverAuthFailure, ReceiverCredentials } from "./receiver-auth.js";
import type {
  KnownWebhookEvent,
  UnknownWebhookEvent,
  WebhookChannel,
  WebhookError,
  WebhookEventOf,
} from "./types.js";

/** The name of every event of the contract: `completed`, `case_completed`, `case.completed`… */
export type WebhookEventName = KnownWebhookEvent["event"];

/**
 * One handler per event, keyed by the event's name as the contract writes it (the workflow
 * delivery is `"case.completed"`); each receives the event narrowed to its own payload type.
 */
export type WebhookHandlers = {
  [E in WebhookEventName]?: (event: WebhookEventOf<E>) => unknown;
};

/**
 * When a delivery is answered 200: `"before-handler"` (the default) answers at once and then calls
 * the handler, as the interface document asks ("respond quickly"); `"after-handler"` answers
 * once the handler has settled, 500 when it throws or outlives `handlerTimeoutMs`, so that the
 * service sends the delivery again.
 */
export type AcknowledgeMode = "before-handler" | "after-handler";

/** Why a delivery was refused, as given to `onRefused`: never a value from the delivery. */
export type WebhookRefusal =
  | { status: 405; reason: "method" }
  | { status: 401; reason: "credentials"; auth: ReceiverAuthFailure }
  | { status: 413; reason: "too_large" }
  | { status: 400; reason: "malformed"; error: WebhookError }
  | { status: 404; reason: "channel"; channel: WebhookChannel | null }
  | { status: 503; reason: "not_recorded"; notRecorded: NotRecordedReason | "deduper_failed" }
  /**
   * With "after-handler": a copy of a delivery this process is still recording or handling (its
   * claim or its handler has not settled), answered 503 so that it is sent again.
   */
  | { status: 503; reason: "in_progress" };

/** What failed after a delivery was accepted, as given to `onError`. */
export interface WebhookFailure {
  /**
   * `handler`: a handler threw or rejected; `forget`: the deduper could not forget a delivery
   * whose handler failed; `body`: the request's body could not be read as bytes (a body parser
   * ran first); `internal`: anything else (answered 500).
   */
  stage: "handler" | "forget" | "body" | "internal";
  /** The event, for `handler` and `forget`. */
  event?: KnownWebhookEvent | UnknownWebhookEvent;
}

/** Options of createWebhookHandler. */
export interface WebhookHandlerOptions {
  /**
   * The Basic or Bearer credentials configured with the webhook URL (several while rotating), or
   * `"none"` for the workflow case URL, whose deliveries carry none (its hard-to-guess URL is the
   * secret): then only workflow deliveries are accepted.
   */
  credentials: ReceiverCredentials | readonly ReceiverCredentials[] | "none";
  /**
   * Which channels this URL receives; a delivery of another is answered 404. Default: the
   * biometric and EDD channels with credentials, the workflow channel with `"none"`.
   */
  channels?: readonly WebhookChannel[];
  /** The handlers: one per event name, or one function for every known event. */
  on: WebhookHandlers | ((event: KnownWebhookEvent) => unknown);
  /** Called with an event type the contract does not know (it is acknowledged 200 either way). */
  onUnknown?: (event: UnknownWebhookEvent) => unknown;
  /** Tells retries apart: createDeduper() in memory by default; `false` to call handlers for every attempt. */
  dedupe?: Deduper | false;
  /** Default `"before-handler"`. */
  acknowledge?: AcknowledgeMode;
  /**
   * With `"after-handler"`, how long a handler may run before its attempt counts as failed: it is
   * answered 500, reported to `onError` (a `TimeoutError`), and its delivery forgotten, so that
   * the service's next attempt runs the handler again (the late one is not stopped). Positive, at
   * most 2^31 - 1 (a timer's limit). Default DEFAULT_HANDLER_TIMEOUT_MS (30 s).
   */
  handlerTimeoutMs?: number;
  /**
   * With `"before-handler"`, given the work that runs after the answer, for platforms that end a
   * request's work with its answer (Next.js `after`, a Cloudflare or Vercel `waitUntil`).
   */
  defer?: (work: Promise<void>) => void;
  /** The largest body read, in bytes; a larger one is answered 413. Default DEFAULT_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** Told of each refusal: what rule, never a value (log `refusal.error.message` for a 400). */
  onRefused?: (refusal: WebhookRefusal) => void;
  /**
   * Told of each failure after acceptance. Default: one line with the error's name on stderr (with the
   * fix when a middleware parsed the body first: that message holds no value of the delivery).
   */
  onError?: (error: unknown, failure: WebhookFailure) => void;
}

/**
 * How long a handler may run under `"after-handler"` by default: 30 seconds, well under the first
 * retry of a biometric event (about 70 s after the delivery), so that a handler that never settles
 * costs that retry nothing: its delivery is released by then.
 */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;

/** Far above the largest delivery (a completed event is a few kB); caps what a sender can make the receiver hold. */
export const DEFAULT_MAX_BODY_BYTES = 1_000_000;
