// The events a workflow step awaits (`x-receive`, arazzo/README.md), awaited at the probe's receiver:
// against the sandbox, registered through its control API, which also stands in for the end user and
// for time; against a deployment, at --receiver-url forwarded to the local listener, with a deadline;
// without either, not checked (a note). Each event is judged by the AsyncAPI contract and its criteria.
import { randomBytes } from "node:crypto";
import type { Json } from "../../src/contract/json.js";
import { list, show } from "../../src/arazzo/documents.js";
import { createWebhookChecker } from "../checks/webhooks.js";
import { type ActiveFinding, type ActiveResult, RECEIVED_EVENT } from "./active-report.js";
import type { ProbeOperation } from "./contract-operations.js";
import { EventReceiver, type ReceivedEvent } from "./event-receiver.js";
import { SandboxControl, type StandIn, standIns } from "./sandbox-drive.js";
import type { ProbeSession } from "./session.js";
import { type StepValues, valueOf } from "./workflow-criteria.js";
import { failedCriteria } from "./workflow-step.js";

/** How a step's awaited events went: all arrived and held, one failed, or they could not be awaited. */
export type Awaited = "ok" | "failed" | "unchecked";

/** The awaiting of a run's events. */
export interface EventWaits {
  awaitAll(at: { workflowId: string; stepId: string }, step: Json, values: StepValues): Promise<Awaited>;
  /** Whether awaiting a workflow's events moves the sandbox's clock (then it must run alone). */
  movesClock(steps: Json[]): boolean;
  close(): Promise<void>;
}

/** Where the events are received, for a run against a deployment. */
export interface ReceiverOptions {
  /** The public address the deployment calls, forwarded to the local listener. */
  receiverUrl?: URL;
  /** The local listener's port (0: any free one). */
  receiverPort?: number;
  /** How long an event is awaited at a deployment. */
  eventTimeoutMs: number;
}

/** `#/channels/<channel>/messages/<message>` as the webhook checker's key, `channel:message`. */
function messageKey(pointer: string): string | undefined {
  const m = /^#\/channels\/([^/]+)\/messages\/([^/]+)$/.exec(pointer);
  return m ? `${m[1]}:${m[2]}` : undefined;
}

/** The status an entry's criteria ask the verification to end with (`…/status == 'review'`). */
function wantedStatus(entry: Json): string | undefined {
  for (const c of list(entry?.successCriteria)) {
    const m = /^\$message\.payload#\/verification\/status == '(pass|review|fail)'$/.exec(show(c?.condition));
    if (m) return m[1];
  }
  return undefined;
}

/** The result of one awaited event: the contract's verdict on it, then its criteria. */
function eventResult(
  label: string,
  entry: Json,
  event: ReceivedEvent | undefined,
  findings: ActiveFinding[],
) {
  const result: ActiveResult = {
    phase: "stateful",
    case: label,
    operationId: show(entry?.operationId),
    method: "POST",
    path: RECEIVED_EVENT,
    status: event ? 200 : 0,
    ms: 0,
    ok: false,
    violations: [...(event?.verdict.violations ?? []), ...findings],
    warnings: [...(event?.verdict.warnings ?? [])],
  };
  result.ok = result.violations.length === 0;
  return result;
}

/** What the listener refused, as the end of a finding's message ("" when it refused nothing). */
function refusedText(receiver: EventReceiver): string {
  const { unauthorized, overBudget } = receiver.refusals;
  const parts = [
    ...(overBudget > 0 ? [`${overBudget} refused once its budget was spent`] : []),
    ...(unauthorized > 0 ? [`${unauthorized} refused without the credentials it registered`] : []),
  ];
  return parts.length > 0 ? ` (of the deliveries to the probe's listener, ${parts.join(", ")})` : "";
}

/** The run's notes on what the listener refused: a delivery refused was not checked. */
function refusalNotes(receiver: EventReceiver): string[] {
  const { unauthorized, overBudget } = receiver.refusals;
  const mib = Math.round(receiver.budgetBytes / (1024 * 1024));
  return [
    ...(overBudget > 0
      ? [
          `stateful: the probe's listener refused ${overBudget} deliveries (503): what it keeps of events (${mib} MiB, 2,000 deliveries) was spent; those were not checked`,
        ]
      : []),
    ...(unauthorized > 0
      ? [
          `stateful: the probe's listener refused ${unauthorized} deliveries (401) without the credentials it registered; those were not checked`,
        ]
      : []),
  ];
}

class Waits implements EventWaits {
  private uncheckedNoted = false;
  constructor(
    private readonly session: ProbeSession,
    private readonly byId: Map<string, ProbeOperation>,
    private readonly options: ReceiverOptions,
    private readonly receiver?: EventReceiver,
    private readonly control?: SandboxControl,
    private readonly registered?: string,
  ) {}

  movesClock(steps: Json[]): boolean {
    if (!this.control) return false;
    return steps.some((step) =>
      list(step?.["x-receive"]).some((entry) =>
        standIns(messageKey(show(entry?.message)) ?? "", undefined).some((s) => "advance" in s),
      ),
    );
  }

  async awaitAll(
    at: { workflowId: string; stepId: string },
    step: Json,
    values: StepValues,
  ): Promise<Awaited> {
    const entries = list(step?.["x-receive"]);
    if (entries.length === 0) return "ok";
    if (!this.receiver) {
      if (!this.uncheckedNoted)
        this.session.notes.push(
          "stateful: the events the workflows await were not checked: give --receiver-url (the address the deployment calls) to receive them",
        );
      this.uncheckedNoted = true;
      return "unchecked";
    }
    for (const entry of entries) {
      const where = `workflow ${at.workflowId}, step ${at.stepId}, event ${show(entry?.stepId)}`;
      const found = await this.awaitOne(at.workflowId, entry, values);
      const findings: ActiveFinding[] = found.problem
        ? [{ in: "delivery", check: "event_received", pointer: "", message: `${where}: ${found.problem}` }]
        : failedCriteria(
            where,
            entry?.successCriteria,
            { ...values, messagePayload: found.event?.json() },
            "delivery.body",
          );
      const result = eventResult(`${at.workflowId}: ${show(entry?.stepId)}`, entry, found.event, findings);
      this.session.add(result);
      if (!result.ok) return "failed";
    }
    return "ok";
  }

  /** One event, found at the receiver (the sandbox driven until it comes), or why not. */
  private async awaitOne(
    workflowId: string,
    entry: Json,
    values: StepValues,
  ): Promise<{ event?: ReceivedEvent; problem?: string }> {
    const key = messageKey(show(entry?.message));
    const id = valueOf(show(entry?.correlationId), values);
    const location = show(entry?.location);
    if (!key) return { problem: `its message ${show(entry?.message)} is not a message of a channel` };
    if (typeof id !== "string" && typeof id !== "number")
      return { problem: `its correlationId ${show(entry?.correlationId)} names no value` };
    // The message first: only a delivery of the awaited message is parsed to find its record.
    const matches = (e: ReceivedEvent) =>
      e.verdict.operationId === key &&
      String(valueOf(location, { inputs: new Map(), steps: new Map(), messagePayload: e.json() })) ===
        String(id);
    const receiver = this.receiver!;
    if (!this.control) {
      const event = await receiver.waitFor(matches, this.options.eventTimeoutMs);
      return event
        ? { event }
        : {
            problem: `no ${key} event about the record arrived within ${this.options.eventTimeoutMs} ms${refusedText(receiver)}`,
          };
    }
    for (const standIn of [undefined, ...standIns(key, wantedStatus(entry))]) {
      if (standIn) await this.standIn(workflowId, standIn, String(id), values);
      await this.control.settle();
      const event = await receiver.waitFor(matches, 0);
      if (event) return { event };
    }
    return { problem: `the sandbox sent no ${key} event about the record${refusedText(receiver)}` };
  }

  /** Do what stands in for the outside world on the sandbox. */
  private async standIn(workflowId: string, standIn: StandIn, id: string, values: StepValues): Promise<void> {
    const control = this.control!;
    if ("advance" in standIn) return control.advance(standIn.advance);
    if ("control" in standIn) {
      await control.call("POST", standIn.control.replace("{id}", encodeURIComponent(id)), standIn.body ?? {});
      return;
    }
    const op = this.byId.get(standIn.operationId);
    const param = values.requestPath?.get(standIn.pathParam);
    if (!op?.body || param === undefined) return;
    const body = Buffer.from(JSON.stringify(standIn.body));
    await this.session.run({
      phase: "stateful",
      case: `${workflowId}: the sandbox's stand-in for the service's team`,
      op,
      params: new Map([[standIn.pathParam, param]]),
      body: { bytes: body, contentType: op.body.mediaType },
      credentials: "valid",
      expect: { kind: "accepted", check: "success_criterion" },
    });
  }

  async close(): Promise<void> {
    if (this.control && this.registered) await this.control.unregister(this.registered);
    if (this.receiver) {
      this.session.notes.push(...refusalNotes(this.receiver));
      await this.receiver.close();
    }
  }
}

/** The event waits of a run: the sandbox's receiver, a deployment's, or none. */
export async function openEventWaits(
  session: ProbeSession,
  byId: Map<string, ProbeOperation>,
  options: ReceiverOptions,
): Promise<EventWaits> {
  const control = await SandboxControl.find(session.options.baseUrl, session.options.timeoutMs);
  if (!control && !options.receiverUrl) return new Waits(session, byId, options);
  const checker = await createWebhookChecker();
  const port = options.receiverPort ?? 0;
  const receiver = await EventReceiver.listen(checker, port).catch(() => undefined);
  if (!receiver) {
    session.notes.push(
      `stateful: the probe could not listen on port ${port}: the awaited events were not checked`,
    );
    return new Waits(session, byId, options);
  }
  // The token is required from the start: no delivery is taken without it, even before it is registered.
  const token = randomBytes(16).toString("hex");
  if (control) receiver.requireBearer(token);
  session.options.onReceiverListening?.(receiver.localUrl);
  if (!control) {
    session.notes.push(
      `stateful: events awaited at ${options.receiverUrl!.origin}, forwarded to the probe's listener at ${receiver.localUrl}`,
    );
    return new Waits(session, byId, options, receiver);
  }
  const registered = await control.register(options.receiverUrl?.href ?? receiver.localUrl, token);
  if (!registered) {
    await receiver.close();
    session.notes.push("stateful: the sandbox refused the probe's receiver: its events were not checked");
    return new Waits(session, byId, options);
  }
  session.notes.push(
    "stateful: a sandbox (its control API answered): the probe registered its receiver there and stood in for end users, agents and time",
  );
  return new Waits(session, byId, options, receiver, control, registered);
}
