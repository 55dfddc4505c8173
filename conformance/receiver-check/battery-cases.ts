// The cases of the receiver battery, in the order they are sent: what the service sends a receiver,
// what it may send one day, and hostile bodies last. Each case is one function of a session.
import type { ActiveFinding } from "../probe/active-report.js";
import { knownEvents } from "./example-deliveries.js";
import { wrongAuth } from "./receiver-auth.js";
import {
  answerFinding,
  type Delivery,
  fresh,
  freshWebhookId,
  json,
  type ReceiverSession,
} from "./receiver-session.js";

/** The size of the large body: the size past which the service refuses uploads. */
export const LARGE_BODY_BYTES = 10 * 1024 * 1024;
/** An event type the contract does not have (yet). */
export const UNKNOWN_EVENT = "verification.expired";
/** A workflow event type the contract does not have (yet). */
export const UNKNOWN_WORKFLOW_EVENT = "case.reopened";

/** Every example of every event, the Test button's body among them (2xx or 3xx passes it). */
async function examples(s: ReceiverSession): Promise<void> {
  for (const d of s.events) {
    const test = d.event === "test";
    await s.expectAck(
      s.eventDelivery(d, test ? "the Test button's body" : `example ${d.event} (${d.example})`),
      "acknowledged",
      test,
    );
  }
}

/** The same delivery twice: retries make duplicates. */
async function duplicates(s: ReceiverSession): Promise<void> {
  const created = s.created;
  if (!created) return;
  const once = fresh(created.payload);
  for (const n of [1, 2])
    await s.expectAck(
      {
        ...s.eventDelivery(
          created,
          `the same ${created.event} delivery, ${n === 1 ? "first" : "again"}`,
          once,
        ),
        phase: "duplicates",
      },
      "duplicate_acknowledged",
    );
}

/** What the service may send one day: a new event type, members the contract does not list. */
async function evolution(s: ReceiverSession): Promise<void> {
  const created = s.created;
  if (!created) return;
  const unknown = knownEvents().has(UNKNOWN_EVENT) ? `${UNKNOWN_EVENT}.next` : UNKNOWN_EVENT;
  await s.expectAck(
    {
      ...s.eventDelivery(created, `an event type the contract does not have`, {
        ...(fresh(created.payload) as object),
        event: unknown,
      }),
      phase: "evolution",
    },
    "unknown_event_acknowledged",
  );
  await s.expectAck(
    {
      ...s.eventDelivery(created, "members the contract does not list", {
        ...(fresh(created.payload) as object),
        delivery_attempt: 1,
        metadata: { added_later: true },
      }),
      phase: "evolution",
    },
    "extra_members_acknowledged",
  );
}

/** Credentials: none, and wrong ones; each must be refused. */
async function credentials(s: ReceiverSession): Promise<void> {
  const created = s.created;
  if (!created) return;
  if (!s.auth) {
    s.notes.push(
      "no --auth given: deliveries were sent without credentials and the credential checks were not run",
    );
    return;
  }
  await s.expectRefusal({
    ...s.eventDelivery(created, "no credentials", fresh(created.payload)),
    phase: "credentials",
    auth: undefined,
    rightAuth: false,
  });
  await s.expectRefusal({
    ...s.eventDelivery(created, "wrong credentials", fresh(created.payload)),
    phase: "credentials",
    auth: wrongAuth(s.auth),
    rightAuth: false,
  });
}

/** The workflow URL: case.completed with a fresh webhook id, then a type the contract does not have. */
async function workflow(s: ReceiverSession): Promise<void> {
  if (!s.options.workflowUrl) {
    s.notes.push("no --workflow-url given: the workflow case deliveries were not sent");
    return;
  }
  for (const d of s.workflow) {
    const delivery: Delivery = {
      case: `example ${d.event} (${d.example})`,
      phase: "workflow",
      operationId: `${d.channel}.${d.event}`,
      workflow: true,
      headers: { ...d.headers, "X-Workflow-Webhook-Id": freshWebhookId() },
      body: json(d.payload),
    };
    await s.expectAck(delivery, "workflow_acknowledged");
    await s.expectAck(
      {
        ...delivery,
        case: "an X-Workflow-Event-Type the contract does not have",
        headers: {
          ...d.headers,
          "X-Workflow-Event-Type": UNKNOWN_WORKFLOW_EVENT,
          "X-Workflow-Webhook-Id": freshWebhookId(),
        },
      },
      "workflow_unknown_type_acknowledged",
    );
  }
}

/** Malformed JSON: refusing it (4xx) is right; acknowledging it hides a fault; no answer is a crash. */
async function malformedJson(s: ReceiverSession): Promise<void> {
  const created = s.created;
  if (!created) return;
  const malformed: Delivery = {
    ...s.eventDelivery(created, "malformed JSON"),
    phase: "hostile",
    body: Buffer.from('{"event": "created", "transaction_id": '),
  };
  const bad = await s.post(malformed);
  const violations: ActiveFinding[] = [];
  const warnings: ActiveFinding[] = [];
  const check = "malformed_json_refused";
  if (bad.status === 0 || bad.status >= 500)
    violations.push(
      answerFinding(
        check,
        bad.status === 0
          ? "the connection closed without an answer: the receiver crashed on a body it could not parse"
          : `answered ${bad.status}: the receiver failed on a body it could not parse (a 4xx says the body is at fault)`,
      ),
    );
  else if (bad.status >= 200 && bad.status < 300)
    warnings.push(
      answerFinding(
        check,
        `answered ${bad.status}: acknowledging a body that cannot be processed hides the fault; answer 400`,
      ),
    );
  if (!(await s.stillAnswers()))
    violations.push(answerFinding(check, "after malformed JSON the receiver no longer answers"));
  s.record(malformed, bad, violations, warnings);
}

/** A 10 MB body, last: any answer, or a closed connection; the receiver must answer the next delivery. */
async function largeBody(s: ReceiverSession): Promise<void> {
  const created = s.created;
  if (!created) return;
  const head = Buffer.from('{"event":"created","message":"');
  const tail = Buffer.from('"}');
  const fill = LARGE_BODY_BYTES - head.length - tail.length;
  const large: Delivery = {
    ...s.eventDelivery(created, `a ${LARGE_BODY_BYTES / 1024 / 1024} MB body`),
    phase: "hostile",
    body: Buffer.concat([head, Buffer.alloc(fill, 0x61), tail]),
    bodyShell: `printf '%s' '{"event":"created","message":"'; head -c ${fill} /dev/zero | tr '\\0' a; printf '"}'`,
  };
  const answer = await s.post(large);
  const alive = await s.stillAnswers();
  s.record(
    large,
    answer,
    alive ? [] : [answerFinding("large_body_survived", "after a 10 MB body the receiver no longer answers")],
    [],
  );
}

/** A case of the battery: its name, and what it sends and judges. */
export interface BatteryCase {
  name: string;
  run: (session: ReceiverSession) => Promise<void>;
}

/** The battery's cases, in the order they are sent (the large body last: it may bring a receiver down). */
export const BATTERY_CASES: readonly BatteryCase[] = [
  { name: "examples", run: examples },
  { name: "duplicates", run: duplicates },
  { name: "evolution", run: evolution },
  { name: "credentials", run: credentials },
  { name: "workflow", run: workflow },
  { name: "malformed JSON", run: malformedJson },
  { name: "large body", run: largeBody },
];
