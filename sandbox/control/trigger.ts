// POST /_sandbox/trigger: one chosen event of the AsyncAPI contract, about an existing record or one
// made for it, with members overridden, checked against the event's schema and then delivered as
// any other event is (every receiver of its kind, credentials, retries, the deliveries' list).
import { webhookChannels } from "../../generated/webhook-events.js";
import type { Answer } from "../../src/server/answer.js";
import { type BiometricRecord, EVENT_MESSAGES } from "../products/biometric/lifecycle.js";
import type { Channel } from "../deliveries/queue.js";
import { BIOMETRIC, biometricBody } from "../products/biometric/biometric.js";
import type { BiometricEvent } from "../products/biometric/record.js";
import { EDD, eddCase, eddCompletedBody } from "../products/edd.js";
import { newWorkflowCase, WORKFLOW } from "../products/workflow.js";
import type { Sandbox } from "../sandbox.js";
import type { SandboxTriggerEvent } from "./client.js";
import { memberPath, setMember } from "./trigger-members.js";
import type { Json } from "../../src/contract/json.js";

// Payloads are JSON the contract describes; overrides put any JSON in them.

/** The test event's greeting (the document gives its shape, {message, event: "test"}, not its words). */
export const TEST_EVENT = {
  message: "Hello from the identity verification sandbox! Your webhook is reachable.",
  event: "test",
};

/** Every event of the contract and its channel, in the contract's order. */
export const TRIGGER_EVENTS: readonly { event: SandboxTriggerEvent; channel: Channel }[] = (
  Object.keys(webhookChannels) as Channel[]
).flatMap((channel) =>
  // The keys of the generated table are the events the type is made of.
  Object.keys(webhookChannels[channel].events).map((event) => ({
    event: event as SandboxTriggerEvent,
    channel,
  })),
);

/** A trigger request, as the control document's TriggerRequest accepted it. */
export interface TriggerRequest {
  event: string;
  subject?: string;
  set?: { member: string; value: unknown }[];
}

/** The record an event is about: what its deliveries' subject is, and how to undo it if it was made. */
interface Subject {
  subject: string;
  record: Json;
  made: { kind: "biometric_verification" | "edd_case" | "workflow_case"; id: string | number } | null;
  forget: () => void;
}

const refuse = (status: number, code: string, message: string): Answer => ({
  status,
  json: { error_code: code, message },
});
const invalid = (pointer: string, why: string) =>
  refuse(400, "BAD_REQUEST", `Invalid request body: ${pointer}: ${why}.`);

/** The 404 of a subject that names no record of the event's product. */
const NOT_FOUND: Record<Channel, string> = {
  biometricWebhook: "No biometric verification has this transaction_id.",
  eddCaseCompleted: "No EDD case has this id or transaction_id.",
  workflowCase: "No workflow case has this id.",
};

/** The record the request names (undefined when there is none), or the one made for it. */
function subjectOf(sandbox: Sandbox, channel: Channel, given: string | undefined): Subject | undefined {
  const none = () => {};
  if (channel === "biometricWebhook") {
    if (given !== undefined) {
      const record = sandbox.biometric.find(given);
      return record && { subject: given, record, made: null, forget: none };
    }
    // Kept by the lifecycle as it is made.
    const record = sandbox.biometric.create({ reference: "sandbox-trigger", sendSms: false, silent: true });
    const id = record.transaction_id;
    const forget = () => sandbox.records.forget(BIOMETRIC, id);
    return { subject: id, record, made: { kind: "biometric_verification", id }, forget };
  }
  if (channel === "eddCaseCompleted") {
    if (given !== undefined) {
      const byId = /^[0-9]{1,15}$/.test(given) ? sandbox.records.get(EDD, Number(given)) : undefined;
      const cases = sandbox.records.records(EDD);
      const record = byId ?? [...cases.values()].find((r) => r.transaction_id === given);
      return record && { subject: record.transaction_id, record, made: null, forget: none };
    }
    const id = sandbox.nextId("edd");
    const request = {
      reference: "sandbox-trigger",
      entity_type: "company",
      legal_name: "Sandbox Trading Limited",
    };
    const record = eddCase(id, { ...request, email: "edd@example.com" }, sandbox.now());
    sandbox.records.put(EDD, id, record);
    const forget = () => sandbox.records.forget(EDD, id);
    return { subject: record.transaction_id, record, made: { kind: "edd_case", id }, forget };
  }
  if (given !== undefined) {
    const record = /^[0-9]{1,15}$/.test(given) ? sandbox.records.get(WORKFLOW, Number(given)) : undefined;
    return record && { subject: given, record, made: null, forget: none };
  }
  const record = newWorkflowCase(sandbox, {});
  record.external_id = `sandbox-trigger-${record.case_id}`;
  const id = record.case_id;
  sandbox.records.put(WORKFLOW, id, record);
  const forget = () => sandbox.records.forget(WORKFLOW, id);
  return { subject: String(id), record, made: { kind: "workflow_case", id }, forget };
}

/** The payload the service would send for `event` about the record, before any override. */
function payloadOf(sandbox: Sandbox, channel: Channel, event: string, record: Json): Json {
  if (channel === "eddCaseCompleted") return eddCompletedBody(record);
  if (channel === "workflowCase") {
    const approval = record.service.approval_status ?? "approved";
    return { ...record, status: "completed", service: { ...record.service, approval_status: approval } };
  }
  const r = record as BiometricRecord;
  const result = event === "completed" || event === "updated";
  const verification = result ? (r.verification ?? sandbox.biometric.result(r)) : null;
  const message = event === "error" || event === "pending" ? EVENT_MESSAGES[event] : null;
  return biometricBody(r, event as BiometricEvent, verification, message);
}

/** Answer POST /_sandbox/trigger: 201 with what was sent, or 400/404 and nothing sent. */
export function trigger(sandbox: Sandbox, request: TriggerRequest): Answer {
  const known = TRIGGER_EVENTS.find((e) => e.event === request.event);
  if (!known)
    return invalid(
      "/event",
      `the contract has no such event; its events are ${TRIGGER_EVENTS.map((e) => e.event).join(", ")}`,
    );
  const { channel, event } = known;
  // Checked before a record is made for it: a refused request leaves nothing behind.
  const paths: string[][] = [];
  for (const [i, { member }] of (request.set ?? []).entries()) {
    try {
      paths.push(memberPath(member));
    } catch (e) {
      return invalid(`/set/${i}/member`, (e as Error).message);
    }
  }
  if (event === "test" && request.subject !== undefined)
    return invalid("/subject", "the test event is about no record");
  const about: Subject =
    event === "test"
      ? { subject: "test", record: null, made: null, forget: () => {} }
      : (subjectOf(sandbox, channel, request.subject) as Subject);
  if (!about) return refuse(404, "NOT_FOUND", NOT_FOUND[channel]);
  const answer = send(sandbox, channel, event, about, request, paths);
  if (answer.status !== 201) about.forget();
  sandbox.changed();
  return answer;
}

/** Build the payload, apply the overrides, and queue it if the contract accepts it. */
function send(
  sandbox: Sandbox,
  channel: Channel,
  event: string,
  about: Subject,
  request: TriggerRequest,
  paths: string[][],
): Answer {
  // A copy: an override never reaches the record the payload was made from.
  const payload: Json = structuredClone(
    event === "test" ? TEST_EVENT : payloadOf(sandbox, channel, event, about.record),
  );
  for (const [i, names] of paths.entries()) {
    try {
      setMember(payload, names, request.set?.[i]?.value);
    } catch (e) {
      return invalid(`/set/${i}/member`, (e as Error).message);
    }
  }
  const workflow = channel === "workflowCase";
  // Checked first: the contract tells events apart by this member, and would judge it as another.
  if (!workflow && payload?.event !== event)
    return refuse(
      400,
      "BAD_REQUEST",
      `The ${event} event would break the contract: payload /event must be "${event}"; nothing was sent.`,
    );
  const headers: Record<string, string> = workflow ? { "X-Workflow-Event-Type": event } : {};
  const sent = sandbox.send(channel, event, about.subject, payload, headers);
  if ("error" in sent) {
    const issue = sent.error.issues[0];
    const where = issue ? `${issue.in} ${issue.pointer} ${issue.message}` : sent.error.message;
    return refuse(
      400,
      "BAD_REQUEST",
      `The ${event} event would break the contract: ${where}; nothing was sent.`,
    );
  }
  return {
    status: 201,
    json: { event, channel, subject: about.subject, made: about.made, receivers: sent.receivers, payload },
  };
}
