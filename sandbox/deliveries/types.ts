// What a delivery and a receiver are, as the queue, the log, the settle waits and the --state file
// share them; the channels and events are the AsyncAPI contract's (generated/webhook-events.ts).
import type { WebhookPayloads } from "../../generated/webhook-events.js";

/** A webhook channel of the AsyncAPI contract. */
export type Channel = keyof WebhookPayloads;

/** An event the contract knows on a channel. */
export type EventOf<C extends Channel> = keyof WebhookPayloads[C] & string;

/** The payload of an event, as the contract's generated types describe it. */
export type PayloadOf<C extends Channel, E extends EventOf<C>> = WebhookPayloads[C][E];

/** Where deliveries go: `events` (biometric and EDD webhooks) or `workflow` (case.completed, no credentials). */
export type ReceiverKind = "events" | "workflow";

/** The receivers a channel's events go to. */
export const kindOf = (channel: Channel): ReceiverKind =>
  channel === "workflowCase" ? "workflow" : "events";

/** Credentials a receiver is configured with (the document allows Basic and Bearer; Digest needs a challenge). */
export type ReceiverAuth =
  { scheme: "bearer"; token: string } | { scheme: "basic"; username: string; password: string };

export interface Receiver {
  id: string;
  url: string;
  kind: ReceiverKind;
  auth?: ReceiverAuth;
  created_at: string;
}

/** One try of a delivery, at the virtual time it was due. `status` is null when no answer came (error says why). */
export interface Attempt {
  at: string;
  status: number | null;
  error?: "timeout" | "connection" | "redirect";
  duration_ms: number;
}

export interface Delivery {
  id: string;
  receiver_id: string;
  channel: Channel;
  event: string;
  /** The biometric transaction, EDD case transaction or workflow case the event is about. */
  subject: string;
  created_at: string;
  status: "pending" | "delivered" | "failed";
  attempts: Attempt[];
  /** Virtual epoch ms of the next attempt, or null when none is due. */
  next_attempt_at: number | null;
  /** Headers other than credentials (those are added from the receiver at each attempt). */
  headers: Record<string, string>;
  body: string;
  replay_of?: string;
  /**
   * Set when the verification it is about was archived and the personal data in its body erased:
   * `resendable` when what is left is still an event the service sends, `withheld` when the event
   * was its result (completed, updated), which is gone: not sent again.
   */
  erased?: "resendable" | "withheld";
}
