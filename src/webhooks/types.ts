import type { components } from "../../generated/types.js";
import type { WebhookPayloads, WebhookRequiredHeaders } from "../../generated/webhook-events.js";

type Schemas = components["schemas"];

/** A webhook channel of the AsyncAPI contract. */
export type WebhookChannel = keyof WebhookPayloads;

/** The idempotency header of workflow deliveries, as the contract names it. */
type WebhookIdHeader = "X-Workflow-Webhook-Id";

/** The type of `webhookId` for an event: from the headers its message requires in the contract. */
type WebhookIdOf<
  C extends WebhookChannel,
  E extends keyof WebhookPayloads[C],
> = E extends keyof WebhookRequiredHeaders[C]
  ? WebhookIdHeader extends WebhookRequiredHeaders[C][E]
    ? string
    : string | undefined
  : string | undefined;

/** Every known event, one member per (channel, event) of the contract, narrowed on `kind` and then `event`. */
export type KnownWebhookEvent = {
  [C in WebhookChannel]: {
    [E in keyof WebhookPayloads[C]]: {
      kind: C;
      event: E;
      payload: WebhookPayloads[C][E];
      /**
       * X-Workflow-Webhook-Id of a workflow delivery: a string where the event's message requires the
       * header (`case.completed`: a delivery without it breaks the contract and is refused), else as sent.
       */
      webhookId: WebhookIdOf<C, E>;
    };
  }[keyof WebhookPayloads[C]];
}[WebhookChannel];

/**
 * An event type the contract does not know yet: a new `event` value, or a new
 * X-Workflow-Event-Type value. Receivers acknowledge it and may ignore it.
 */
export interface UnknownWebhookEvent {
  kind: "unknown";
  /** The channel when the delivery says which (workflow headers); null for a new `event` value. */
  channel: WebhookChannel | null;
  event: string;
  /** The parsed body, not checked: its schema is not in the contract. */
  payload: unknown;
  webhookId: string | undefined;
}

/** A parsed, checked delivery. */
export type WebhookEvent = KnownWebhookEvent | UnknownWebhookEvent;

/** The known event with this name. */
export type WebhookEventOf<E extends KnownWebhookEvent["event"]> = Extract<KnownWebhookEvent, { event: E }>;

/** The body of any known biometric webhook event. */
export type BiometricWebhookPayload = Schemas["BiometricWebhookEvent"];
/** The body of the EDD case_completed event. */
export type EddCaseCompletedPayload = Schemas["EddCaseCompletedWebhook"];
/** The body of a workflow case.completed delivery. */
export type WorkflowCaseCompletedPayload = Schemas["WorkflowCaseCompletedWebhook"];
/** The result carried by completed and updated biometric events. */
export type BiometricVerificationResult = Schemas["BiometricVerificationResult"];

/** What is wrong with a delivery. */
export type WebhookErrorKind = "not_json" | "too_deep" | "unknown_channel" | "schema_violation";

/** One place where a delivery breaks the contract: where and why, never the value found there. */
export interface WebhookIssue {
  in: "payload" | "headers";
  /** JSON Pointer into the payload, or `/Header-Name` for a header. */
  pointer: string;
  message: string;
}

/** Why a delivery could not be parsed. Its text never repeats values from the delivery. */
export interface WebhookError {
  kind: WebhookErrorKind;
  message: string;
  channel?: WebhookChannel;
  event?: string;
  /** The first issue's pointer, for schema violations. */
  pointer?: string;
  issues: WebhookIssue[];
}

/** The outcome of parseWebhook: an event, or an error saying what is wrong. */
export type ParseWebhookResult =
  { event: WebhookEvent; error?: undefined } | { event?: undefined; error: WebhookError };
