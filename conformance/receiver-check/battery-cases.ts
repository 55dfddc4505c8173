// The cases of the receiver battery, in the order they are sent: what the service sends a receiver,
// what it may send one day, and hostile bodies last. The table is data: each case plans its
// deliveries and says what a correct receiver answers. The battery (battery.ts) sends and judges
// them with fresh random ids; npm run build:vectors writes them, with fixed ids, to
// vectors/receiver.json. One table, so the two can never disagree.
import type { Json } from "../../src/contract/json.js";
import type { ActiveCheckName } from "../probe/active-checks.js";
import { type ExampleDelivery, isWorkflowChannel, knownEvents } from "./example-deliveries.js";

/** The size of the large body: the size past which the service refuses uploads. */
export const LARGE_BODY_BYTES = 10 * 1024 * 1024;
/** An event type the contract does not have (yet). */
export const UNKNOWN_EVENT = "verification.expired";
/** A workflow event type the contract does not have (yet). */
export const UNKNOWN_WORKFLOW_EVENT = "case.reopened";

/**
 * How an answer is judged. `ack`: 2xx (3xx too for the Test button). `refusal`: anything but 2xx
 * (a correct receiver answers 401). `malformed`: 4xx; 2xx hides the fault (a warning); 5xx or no
 * answer is a crash. `survive`: any answer or a closed connection. After `malformed` and `survive`
 * the receiver must still answer a delivery.
 */
export type Judgement = "ack" | "refusal" | "malformed" | "survive";

/** A body of one byte repeated between a head and a tail: too large to write out. */
export interface RepeatedBody {
  head: string;
  /** One ASCII character, repeated. */
  repeat: string;
  count: number;
  tail: string;
}

/** One delivery of the battery, as data. */
export interface PlannedDelivery {
  case: string;
  phase: string;
  operationId: string;
  /** Which URL: the events URL, or the workflow case Webhook URL (no credentials). */
  target: "events" | "workflow";
  /** The configured credentials, none, or wrong ones of the same scheme (events URL only). */
  auth: "right" | "none" | "wrong";
  headers: Record<string, string>;
  /** The body: a JSON value (sent as JSON.stringify writes it), raw bytes, or a repeated byte. */
  body: { json: unknown } | { bytes: Buffer } | { repeated: RepeatedBody };
  judge: Judgement;
  /** The check a failure is reported under. */
  check: ActiveCheckName;
  /** A 3xx passes too (the Test button). */
  accept3xx?: boolean;
  /** Whether a correct receiver's handler runs for it: false for duplicates, refusals, unknown types. */
  handlerRuns: boolean;
}

/** The ids each run makes anew: random in the battery, fixed in the vectors. */
export interface FreshIds {
  transactionId(): string;
  webhookId(): string;
}

/** What a case plans from: the contract's example deliveries and the run's fresh ids. */
export interface PlanContext {
  events: ExampleDelivery[];
  workflow: ExampleDelivery[];
  /** The delivery the cases after the examples are made from (a `created` event when there is one). */
  created: ExampleDelivery | undefined;
  ids: FreshIds;
  document?: Json;
}

/** A plan context over the given example deliveries. */
export function planContext(deliveries: ExampleDelivery[], ids: FreshIds, document?: Json): PlanContext {
  const events = deliveries.filter((d) => !isWorkflowChannel(d.channel));
  const workflow = deliveries.filter((d) => isWorkflowChannel(d.channel));
  const created = events.find((d) => d.event === "created") ?? events[0];
  return { events, workflow, created, ids, ...(document ? { document } : {}) };
}

/**
 * The payload with a transaction id of its own: each case after the examples is a delivery the
 * receiver has not seen, so that a receiver that drops duplicates is judged on duplicates alone.
 */
export function freshPayload(payload: unknown, ids: FreshIds): unknown {
  if (payload === null || typeof payload !== "object" || !("transaction_id" in payload)) return payload;
  return { ...payload, transaction_id: ids.transactionId() };
}

/** A delivery of an example to the events URL with the configured credentials. */
export function eventDelivery(d: ExampleDelivery, label: string, payload: unknown = d.payload) {
  return {
    case: label,
    phase: "deliveries",
    operationId: `${d.channel}.${d.event}`,
    target: "events" as const,
    auth: "right" as const,
    headers: { ...d.headers },
    body: { json: payload },
  };
}

/** Every example of every event, the Test button's body among them (2xx or 3xx passes it). */
function examples(c: PlanContext): PlannedDelivery[] {
  return c.events.map((d) => {
    const test = d.event === "test";
    return {
      ...eventDelivery(d, test ? "the Test button's body" : `example ${d.event} (${d.example})`),
      judge: "ack",
      check: "acknowledged",
      ...(test ? { accept3xx: true } : {}),
      handlerRuns: true,
    };
  });
}

/** The same delivery twice: retries make duplicates. */
function duplicates({ created, ids }: PlanContext): PlannedDelivery[] {
  if (!created) return [];
  const once = freshPayload(created.payload, ids);
  return [1, 2].map((n) => ({
    ...eventDelivery(created, `the same ${created.event} delivery, ${n === 1 ? "first" : "again"}`, once),
    phase: "duplicates",
    judge: "ack",
    check: "duplicate_acknowledged",
    handlerRuns: n === 1,
  }));
}

/** What the service may send one day: a new event type, members the contract does not list. */
function evolution({ created, ids, document }: PlanContext): PlannedDelivery[] {
  if (!created) return [];
  const unknown = knownEvents(document).has(UNKNOWN_EVENT) ? `${UNKNOWN_EVENT}.next` : UNKNOWN_EVENT;
  const payload = () => freshPayload(created.payload, ids) as object;
  return [
    {
      ...eventDelivery(created, "an event type the contract does not have", { ...payload(), event: unknown }),
      phase: "evolution",
      judge: "ack",
      check: "unknown_event_acknowledged",
      handlerRuns: false,
    },
    {
      ...eventDelivery(created, "members the contract does not list", {
        ...payload(),
        delivery_attempt: 1,
        metadata: { added_later: true },
      }),
      phase: "evolution",
      judge: "ack",
      check: "extra_members_acknowledged",
      handlerRuns: true,
    },
  ];
}

/** Credentials: none, and wrong ones; each must be refused. */
function credentials({ created, ids }: PlanContext): PlannedDelivery[] {
  if (!created) return [];
  return (["none", "wrong"] as const).map((auth) => ({
    ...eventDelivery(
      created,
      auth === "none" ? "no credentials" : "wrong credentials",
      freshPayload(created.payload, ids),
    ),
    phase: "credentials",
    auth,
    judge: "refusal",
    check: "credentials_required",
    handlerRuns: false,
  }));
}

/** The workflow URL: case.completed with a fresh webhook id, then a type the contract does not have. */
function workflow({ workflow: deliveries, ids }: PlanContext): PlannedDelivery[] {
  return deliveries.flatMap((d): PlannedDelivery[] => {
    const common = {
      phase: "workflow",
      operationId: `${d.channel}.${d.event}`,
      target: "workflow" as const,
      auth: "none" as const,
      body: { json: d.payload },
      judge: "ack" as const,
    };
    return [
      {
        ...common,
        case: `example ${d.event} (${d.example})`,
        headers: { ...d.headers, "X-Workflow-Webhook-Id": ids.webhookId() },
        check: "workflow_acknowledged",
        handlerRuns: true,
      },
      {
        ...common,
        case: "an X-Workflow-Event-Type the contract does not have",
        headers: {
          ...d.headers,
          "X-Workflow-Event-Type": UNKNOWN_WORKFLOW_EVENT,
          "X-Workflow-Webhook-Id": ids.webhookId(),
        },
        check: "workflow_unknown_type_acknowledged",
        handlerRuns: false,
      },
    ];
  });
}

/** Malformed JSON: refusing it (4xx) is right; acknowledging it hides a fault; no answer is a crash. */
function malformedJson({ created }: PlanContext): PlannedDelivery[] {
  if (!created) return [];
  return [
    {
      ...eventDelivery(created, "malformed JSON"),
      phase: "hostile",
      body: { bytes: Buffer.from('{"event": "created", "transaction_id": ') },
      judge: "malformed",
      check: "malformed_json_refused",
      handlerRuns: false,
    },
  ];
}

/** A 10 MB body, last: any answer, or a closed connection; the receiver must answer the next delivery. */
function largeBody({ created }: PlanContext): PlannedDelivery[] {
  if (!created) return [];
  const head = '{"event":"created","message":"';
  const tail = '"}';
  return [
    {
      ...eventDelivery(created, `a ${LARGE_BODY_BYTES / 1024 / 1024} MB body`),
      phase: "hostile",
      body: { repeated: { head, repeat: "a", count: LARGE_BODY_BYTES - head.length - tail.length, tail } },
      judge: "survive",
      check: "large_body_survived",
      handlerRuns: false,
    },
  ];
}

/** A case of the battery: its name, and the deliveries it plans. */
export interface BatteryCase {
  name: string;
  plan: (context: PlanContext) => PlannedDelivery[];
}

/** The battery's cases, in the order they are sent (the large body last: it may bring a receiver down). */
export const BATTERY_CASES: readonly BatteryCase[] = [
  { name: "examples", plan: examples },
  { name: "duplicates", plan: duplicates },
  { name: "evolution", plan: evolution },
  { name: "credentials", plan: credentials },
  { name: "workflow", plan: workflow },
  { name: "malformed JSON", plan: malformedJson },
  { name: "large body", plan: largeBody },
];

/** The delivery sent after a hostile one to see that the receiver still answers: any answer will do. */
export function livenessDelivery(c: PlanContext): PlannedDelivery | undefined {
  const first = c.events[0];
  if (!first) return undefined;
  return {
    ...eventDelivery(first, "liveness", freshPayload(first.payload, c.ids)),
    judge: "survive",
    check: "still_answers",
    handlerRuns: true,
  };
}

/** The bytes of a planned body. */
export function bodyBytes(body: PlannedDelivery["body"]): Buffer {
  if ("json" in body) return Buffer.from(JSON.stringify(body.json));
  if ("bytes" in body) return body.bytes;
  const { head, repeat, count, tail } = body.repeated;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(count, repeat), Buffer.from(tail)]);
}
