import type { ErrorObject } from "ajv";
import { webhookChannels } from "../../generated/webhook-events.js";
import { escapeToken } from "../contract/json-pointer.js";
import { exceedsJsonLimits } from "../json-scan.js";
import { contractWords, validatorAt } from "./contract.js";
import { type HeadersLike, readHeader } from "./headers.js";
import type {
  KnownWebhookEvent,
  ParseWebhookResult,
  WebhookChannel,
  WebhookError,
  WebhookIssue,
} from "./types.js";

/** A delivery's body as received: the raw bytes, or the text they decode to. */
export type RawBody = Uint8Array | string;

const WORKFLOW_ID_HEADER = "x-workflow-webhook-id";

interface EventSchemas {
  payload: string;
  headers?: string;
  headerNames?: readonly string[];
}

type ChannelTable = Record<
  WebhookChannel,
  { eventIn: "payload" | "header"; eventMember: string; events: Record<string, EventSchemas> }
>;
const channels = webhookChannels as ChannelTable;
const channelNames = Object.keys(channels) as WebhookChannel[];

const fail = (error: Omit<WebhookError, "issues"> & { issues?: WebhookIssue[] }): ParseWebhookResult => ({
  error: { issues: [], ...error },
});

/** Where an ajv error points, as a JSON Pointer; a missing member is pointed at, not its parent. */
function issueOf(part: WebhookIssue["in"], e: ErrorObject): WebhookIssue {
  const missing =
    e.keyword === "required" ? (e.params as { missingProperty: string }).missingProperty : undefined;
  // Keys of free-form objects come from the sender and may be personal data or secrets: only names
  // the contract writes are shown.
  const pointer = contractWords().pointer(
    e.instancePath + (missing === undefined ? "" : `/${escapeToken(missing)}`),
  );
  // ajv's messages name the rule (type, pattern, allowed values), never the data: safe to repeat.
  return {
    in: part,
    pointer: pointer || "/",
    message: missing ? "is required" : (e.message ?? "is invalid"),
  };
}

// Reusable: a non-streaming decode keeps no state between calls. Fatal: bytes that are not
// UTF-8 make the body unusable rather than turning into U+FFFD.
const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(body: RawBody): unknown {
  const text = typeof body === "string" ? body : utf8.decode(body);
  return JSON.parse(text);
}

/**
 * The deepest nesting of arrays and objects a delivery may have. The contract's deepest event
 * (biometric `updated`) nests 6 levels; 64 leaves room for free-form members while keeping every
 * later step (ajv, the deduper's hash, the receiver's own code) far from any stack limit.
 */
export const MAX_WEBHOOK_DEPTH = 64;

/**
 * Which channel a delivery belongs to and the event it names: a channel whose event is named by
 * a header (workflow) when that header or X-Workflow-Webhook-Id is present; otherwise the
 * channel whose events include the body's `event` (null when none does: a new event type).
 */
function identify(
  payload: unknown,
  headers: HeadersLike | null,
  webhookId: string | undefined,
): { channel: WebhookChannel | null; event: string } | { error: WebhookError } {
  for (const channel of channelNames) {
    const { eventIn, eventMember } = channels[channel];
    if (eventIn !== "header") continue;
    const event = readHeader(headers, eventMember);
    if (event !== undefined) return { channel, event };
    if (webhookId === undefined) continue;
    const pointer = `/${eventMember}`;
    return {
      error: {
        kind: "schema_violation",
        channel,
        message: `The ${channel} delivery breaks the contract: headers ${pointer} is required (it names the event type).`,
        pointer,
        issues: [{ in: "headers", pointer, message: "is required" }],
      },
    };
  }

  const event = (payload as { event?: unknown } | null)?.event;
  if (
    typeof payload !== "object" ||
    payload === null ||
    Array.isArray(payload) ||
    typeof event !== "string"
  ) {
    return {
      error: {
        kind: "unknown_channel",
        message:
          "The delivery names no channel: the body is not an object with a string `event` member, and no X-Workflow-Event-Type header is set.",
        issues: [],
      },
    };
  }
  const channel = channelNames.find(
    // Own members only: "toString" or "constructor" are names every object answers to.
    (name) => channels[name].eventIn === "payload" && Object.hasOwn(channels[name].events, event),
  );
  return { channel: channel ?? null, event };
}

/**
 * Parse a webhook delivery from its raw body and headers: identify the channel and event,
 * check the payload (and headers) against the contract, and return the typed event. An event
 * type the contract does not know is returned with `kind: "unknown"`, never as an error.
 */
export function parseWebhook(body: RawBody, headers: HeadersLike | null = {}): ParseWebhookResult {
  // Measured before JSON.parse builds it: a deep body costs heap to parse and stack to walk.
  if (exceedsJsonLimits(body, { maxDepth: MAX_WEBHOOK_DEPTH, maxValues: Infinity }))
    return fail({
      kind: "too_deep",
      message: `The body nests arrays or objects more than ${MAX_WEBHOOK_DEPTH} levels deep; no delivery of the contract comes close.`,
    });
  let payload: unknown;
  try {
    payload = decode(body);
  } catch {
    // The parser's own message quotes the body, which may hold personal data.
    return fail({ kind: "not_json", message: "The body is not JSON (or not UTF-8)." });
  }
  return checkWebhookPayload(payload, headers);
}

/**
 * What parseWebhook answers once the body is parsed: `payload` is the body's JSON value (a value
 * JSON.stringify writes as it is: plain objects, arrays, strings, finite numbers, booleans, null).
 * For a sender that holds the value it is about to send, so that it need not parse its own JSON.
 */
export function checkWebhookPayload(payload: unknown, headers: HeadersLike | null = {}): ParseWebhookResult {
  const webhookId = readHeader(headers, WORKFLOW_ID_HEADER);
  const found = identify(payload, headers, webhookId);
  if ("error" in found) return found;
  const { channel, event } = found;

  const schemas =
    channel && Object.hasOwn(channels[channel].events, event) ? channels[channel].events[event] : undefined;
  if (!channel || !schemas) return { event: { kind: "unknown", channel, event, payload, webhookId } };

  const issues: WebhookIssue[] = [];
  if (schemas.headers) {
    // Keyed by the contract's header names, never by the sender's; null-prototype all the same.
    const values: Record<string, string> = Object.create(null);
    for (const name of schemas.headerNames ?? []) {
      const value = readHeader(headers, name);
      if (value !== undefined) values[name] = value;
    }
    const validate = validatorAt(schemas.headers);
    if (!validate(values)) issues.push(...(validate.errors ?? []).map((e) => issueOf("headers", e)));
  }
  const validate = validatorAt(schemas.payload);
  if (!validate(payload)) issues.push(...(validate.errors ?? []).map((e) => issueOf("payload", e)));

  if (issues.length > 0) {
    const [first] = issues as [WebhookIssue, ...WebhookIssue[]];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    return fail({
      kind: "schema_violation",
      channel,
      event,
      pointer: first.pointer,
      issues,
      message: `The ${channel} "${event}" delivery breaks the contract: ${first.in} ${first.pointer} ${first.message}${more}.`,
    });
  }
  return { event: { kind: channel, event, payload, webhookId } as KnownWebhookEvent };
}
