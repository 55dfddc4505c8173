import { createAcknowledgeAfter } from "./acknowledge-after.js";
import { createDeduper, type Deduper, DeliveryNotRecordedError } from "./dedupe.js";
import type { CoreResult, DeliveryAnswer } from "./core-result.js";
import {
  type AcknowledgeMode,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  type WebhookFailure,
  type WebhookHandlerOptions,
  type WebhookRefusal,
} from "./handler-options.js";
import type { HeadersLike } from "./headers.js";
import { parseWebhook } from "./parse-webhook.js";
import { checkReceiverAuth, type ReceiverCredentials } from "./receiver-auth.js";
import { mountingMessage } from "./mounting-error.js";
import type { KnownWebhookEvent, UnknownWebhookEvent, WebhookChannel, WebhookEvent } from "./types.js";

// The core of createWebhookHandler, free of any HTTP library: a request comes in as its method,
// headers and a way to read the body; the answer goes out as a status, headers and a generic word.
// The node:http and fetch forms are adapters around it.

/** What the body reader gives when the body is larger than the limit. */
export const TOO_LARGE = Symbol("too large");
/** What the body reader rejects with when the sender went away: nobody is told, nothing answered. */
export const CLIENT_GONE = Symbol("client gone");

/** A request as the core sees it. */
export interface IncomingDelivery {
  method: string | undefined;
  headers: HeadersLike;
  /** The body's bytes, or TOO_LARGE past `maxBytes`; rejects when it cannot be read. */
  body(maxBytes: number): Promise<Uint8Array | typeof TOO_LARGE>;
}

export type { CoreResult, DeliveryAnswer } from "./core-result.js";

const WORDS: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Content Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

function answer(status: number, extra: Record<string, string> = {}): DeliveryAnswer {
  return {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...extra },
    body: WORDS[status] ?? "Error",
  };
}

const BODY_CHANNELS: readonly WebhookChannel[] = ["biometricWebhook", "eddCaseCompleted"];
const ALL_CHANNELS: readonly WebhookChannel[] = [...BODY_CHANNELS, "workflowCase"];
const MODES: readonly AcknowledgeMode[] = ["before-handler", "after-handler"];
// The longest wait a timer takes: setTimeout fires at once, with a warning, past it.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The WWW-Authenticate challenges for the configured schemes (RFC 7617, RFC 6750). */
function challengeOf(list: readonly ReceiverCredentials[]): string {
  const schemes = new Set(list.map((c) => c.scheme));
  const challenges: string[] = [];
  if (schemes.has("basic")) challenges.push('Basic realm="webhooks", charset="UTF-8"');
  if (schemes.has("bearer")) challenges.push('Bearer realm="webhooks"');
  return challenges.join(", ");
}

/** The options checked once, when the handler is made: a mistake throws then, not per delivery. */
function settle(options: WebhookHandlerOptions) {
  if (options === null || typeof options !== "object")
    throw new TypeError("createWebhookHandler needs an options object.");
  const { credentials, on } = options;
  let list: readonly ReceiverCredentials[] = [];
  if (credentials !== "none") {
    list = (Array.isArray(credentials) ? credentials : [credentials]) as readonly ReceiverCredentials[];
    checkReceiverAuth({}, list); // throws a TypeError naming the rule a credential breaks
  }
  const channels = options.channels ?? (credentials === "none" ? ["workflowCase"] : BODY_CHANNELS);
  if (!Array.isArray(channels) || channels.some((c) => !ALL_CHANNELS.includes(c)))
    throw new TypeError(`channels lists channels of the contract: ${ALL_CHANNELS.join(", ")}.`);
  if (credentials === "none" && channels.some((c) => c !== "workflowCase"))
    throw new TypeError(
      'credentials "none" receives only the workflow channel: its deliveries are the only ones sent without credentials.',
    );
  if ((typeof on !== "object" || on === null) && typeof on !== "function")
    throw new TypeError("on is an object of handlers by event name, or one function.");
  const mode = options.acknowledge ?? "before-handler";
  if (!MODES.includes(mode)) throw new TypeError(`acknowledge is one of ${MODES.join(", ")}.`);
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 1))
    throw new RangeError("maxBodyBytes must be a whole number of bytes, at least 1.");
  const timeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  if (!(timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS))
    throw new RangeError(
      `handlerTimeoutMs must be a positive number of milliseconds, at most ${MAX_TIMER_MS}.`,
    );
  const dedupe: Deduper | false = options.dedupe ?? createDeduper();
  return { list, channels, mode, maxBytes, timeoutMs, dedupe, challenge: challengeOf(list) };
}

/** A hook of the integrator's, called so that nothing it throws reaches the request. */
function quietly<A extends unknown[]>(hook: ((...args: A) => unknown) | undefined, ...args: A): void {
  try {
    hook?.(...args);
  } catch {
    // The integrator's logger failed: there is nothing better to tell it with.
  }
}

const defaultOnError = (error: unknown, failure: WebhookFailure) => {
  // The name only: a message may carry values from the delivery. A mounting error's message is the
  // library's own words and says the fix, so it is printed.
  const name = error instanceof Error ? error.name : typeof error;
  const own = mountingMessage(error);
  console.error(
    `idv-contract/webhooks: ${failure.stage} failed (${own ? `${name}: ${own}` : name}); pass onError to handle it`,
  );
};

/** The function that takes a request to its answer; it never rejects. */
export function createCore(options: WebhookHandlerOptions): (d: IncomingDelivery) => Promise<CoreResult> {
  const { list, channels, mode, maxBytes, timeoutMs, dedupe, challenge } = settle(options);
  const { on, onUnknown, onRefused } = options;
  const onError = options.onError ?? defaultOnError;

  const refuse = (refusal: WebhookRefusal, extra?: Record<string, string>): CoreResult => {
    quietly(onRefused, refusal);
    return { answer: answer(refusal.status, extra) };
  };

  /** The handler an event goes to, or undefined when none is given (the event is acknowledged). */
  const handlerOf = (event: WebhookEvent): (() => unknown) | undefined => {
    if (event.kind === "unknown") return onUnknown && (() => onUnknown(event));
    if (typeof on === "function") return () => on(event);
    // The name is the contract's (parseWebhook returned a known event), looked up as an own member.
    const handler = Object.hasOwn(on, event.event)
      ? (on as Record<string, ((e: KnownWebhookEvent) => unknown) | undefined>)[event.event]
      : undefined;
    return typeof handler === "function" ? () => handler.call(on, event) : undefined;
  };

  /** Run a handler; false when it threw or rejected (reported to onError). */
  const invoke = async (run: () => unknown, event: KnownWebhookEvent | UnknownWebhookEvent) => {
    try {
      await run();
      return true;
    } catch (error) {
      quietly(onError, error, { stage: "handler", event });
      return false;
    }
  };

  /** After a failed handler, let the service's next attempt through the deduper; false when it cannot. */
  const forget = async (event: WebhookEvent) => {
    if (!dedupe) return true;
    try {
      if (!dedupe.forget) throw new TypeError("the deduper cannot forget a delivery (no forget method)");
      await dedupe.forget(event);
      return true;
    } catch (error) {
      quietly(onError, error, { stage: "forget", event });
      return false;
    }
  };

  /**
   * Record a delivery with the deduper: undefined when it is to be processed, else its answer (200
   * for a duplicate, unless `redo`; 503 when it could not be recorded).
   */
  const record = async (event: WebhookEvent, redo = false): Promise<CoreResult | undefined> => {
    if (!dedupe) return undefined;
    try {
      if ((await dedupe.isDuplicate(event)) && !redo) return { answer: answer(200) };
      return undefined;
    } catch (e) {
      const notRecorded = e instanceof DeliveryNotRecordedError ? e.reason : "deduper_failed";
      return refuse({ status: 503, reason: "not_recorded", notRecorded });
    }
  };

  /** "before-handler": recorded, answered 200, then handled. */
  const acknowledgeFirst = async (event: KnownWebhookEvent | UnknownWebhookEvent, run: () => unknown) =>
    (await record(event)) ?? { answer: answer(200), after: async () => void (await invoke(run, event)) };

  const acknowledgeAfter = createAcknowledgeAfter({
    timeoutMs,
    record,
    invoke,
    forget,
    report: (error, event) => quietly(onError, error, { stage: "handler", event }),
    answer: (status) => ({ answer: answer(status) }),
    inProgress: () => refuse({ status: 503, reason: "in_progress" }),
  });

  const receive = async (d: IncomingDelivery): Promise<CoreResult> => {
    if (d.method !== "POST") return refuse({ status: 405, reason: "method" }, { allow: "POST" });
    if (list.length > 0) {
      const auth = checkReceiverAuth(d.headers, list);
      if (!auth.ok)
        return refuse(
          { status: 401, reason: "credentials", auth: auth.reason },
          { "www-authenticate": challenge },
        );
    }
    let bytes: Uint8Array | typeof TOO_LARGE;
    try {
      bytes = await d.body(maxBytes);
    } catch (error) {
      if (error !== CLIENT_GONE) quietly(onError, error, { stage: "body" });
      return { answer: answer(500) };
    }
    if (bytes === TOO_LARGE) return refuse({ status: 413, reason: "too_large" });
    const { event, error } = parseWebhook(bytes, d.headers);
    if (error) return refuse({ status: 400, reason: "malformed", error });
    const channel = event.kind === "unknown" ? event.channel : event.kind;
    const accepted =
      channel === null ? channels.some((c) => BODY_CHANNELS.includes(c)) : channels.includes(channel);
    if (!accepted) return refuse({ status: 404, reason: "channel", channel });

    const run = handlerOf(event);
    if (!run) return { answer: answer(200) }; // nobody to call: acknowledged, nothing recorded
    return mode === "before-handler" ? acknowledgeFirst(event, run) : acknowledgeAfter(event, run);
  };

  return async (d) => {
    try {
      return await receive(d);
    } catch (error) {
      // Nothing above should throw; should it, the request still gets its answer.
      quietly(onError, error, { stage: "internal" });
      return { answer: answer(500) };
    }
  };
}
