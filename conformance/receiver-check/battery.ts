// The receiver battery: what the service sends a webhook receiver, and what it may send one day,
// judged by the rules the interface document gives receivers ("respond 2xx to acknowledge; respond
// quickly", "duplicates may arrive", new event types may be added, Basic/Bearer credentials).
import { randomBytes, randomUUID } from "node:crypto";
import type { ActiveFinding, ActiveResult } from "../probe/active-report.js";
import { type CurlHeader, curlCommand, shellQuote } from "../probe/curl.js";
import { type Answer, send } from "../probe/http-send.js";
import {
  type ExampleDelivery,
  exampleDeliveries,
  isWorkflowChannel,
  knownEvents,
} from "./example-deliveries.js";
import { authorization, type ReceiverAuth, wrongAuth } from "./receiver-auth.js";
import { shownUrl } from "../run/url-intake.js";

export { shownUrl };

/** What the battery is pointed at. */
export interface BatteryOptions {
  /** The events URL (biometric and EDD events), authenticated with `auth`. */
  url: URL;
  auth?: ReceiverAuth;
  /** The workflow case Webhook URL (no credentials). */
  workflowUrl?: URL;
  /** A delivery not acknowledged within this many milliseconds failed (the sandbox waits 10 s). */
  timeoutMs: number;
  /** Above this many milliseconds an acknowledgement is slow (a warning): "respond quickly". */
  slowMs?: number;
  /** Called after each request (for progress). */
  onResult?: (result: ActiveResult) => void;
}

/** The default --timeout: the sandbox's delivery timeout. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** An acknowledgement slower than this is reported. */
export const SLOW_ACK_MS = 1_000;
/** The size of the large body: the size past which the service refuses uploads. */
export const LARGE_BODY_BYTES = 10 * 1024 * 1024;
/** Bytes of a receiver's answer kept (only its status is judged). */
const ANSWER_BYTES = 64 * 1024;
/** An event type the contract does not have (yet). */
export const UNKNOWN_EVENT = "verification.expired";
/** A workflow event type the contract does not have (yet). */
export const UNKNOWN_WORKFLOW_EVENT = "case.reopened";

interface Delivery {
  case: string;
  phase: string;
  operationId: string;
  /** Which URL: the events URL or the workflow URL. */
  workflow: boolean;
  headers: Record<string, string>;
  /** Send these credentials; undefined sends none. */
  auth?: ReceiverAuth | undefined;
  /** The configured credentials are sent (the reproducer names them by variable). */
  rightAuth?: boolean;
  body: Buffer;
  /** How the reproducer prints a body too large to show. */
  bodyShell?: string;
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const freshWebhookId = (): string => `whk_probe_${randomBytes(10).toString("hex")}`;

/**
 * The payload with a transaction id of its own: each case after the examples is a delivery the
 * receiver has not seen, so that a receiver that drops duplicates is judged on duplicates alone.
 */
function fresh(payload: unknown): unknown {
  if (payload === null || typeof payload !== "object" || !("transaction_id" in payload)) return payload;
  return { ...payload, transaction_id: randomUUID() };
}

/** Run the battery and give one result per request, in the order sent. */
export async function runBattery(
  options: BatteryOptions,
): Promise<{ results: ActiveResult[]; notes: string[] }> {
  const results: ActiveResult[] = [];
  const notes: string[] = [];
  const slowMs = options.slowMs ?? SLOW_ACK_MS;
  const deliveries = exampleDeliveries();
  const events = deliveries.filter((d) => !isWorkflowChannel(d.channel));
  const workflow = deliveries.filter((d) => isWorkflowChannel(d.channel));
  const auth = options.auth;
  if (options.url.search !== "")
    notes.push(
      `the events URL's query values are shown as [redacted]; its reproducers read the query from $${QUERY_VARIABLE}`,
    );
  const eventDelivery = (d: ExampleDelivery, label: string, payload: unknown = d.payload): Delivery => ({
    case: label,
    phase: "deliveries",
    operationId: `${d.channel}.${d.event}`,
    workflow: false,
    headers: { ...d.headers },
    auth,
    rightAuth: auth !== undefined,
    body: json(payload),
  });

  const post = async (d: Delivery): Promise<Answer> => {
    const url = d.workflow ? options.workflowUrl! : options.url;
    const headers: [string, string][] = Object.entries(d.headers);
    if (d.auth) headers.push(["Authorization", authorization(d.auth)]);
    return send(
      { method: "POST", url, headers, body: d.body },
      { timeoutMs: options.timeoutMs, maxBodyBytes: ANSWER_BYTES },
    );
  };

  const record = (d: Delivery, answer: Answer, violations: ActiveFinding[], warnings: ActiveFinding[]) => {
    const result: ActiveResult = {
      phase: d.phase,
      case: d.case,
      operationId: d.operationId,
      method: "POST",
      path: d.workflow ? "workflow URL" : "events URL",
      status: answer.status,
      ms: Math.round(answer.ms * 10) / 10,
      ok: violations.length === 0,
      violations,
      warnings,
    };
    if (violations.length > 0) result.curl = reproducer(d, options);
    results.push(result);
    options.onResult?.(result);
    return result;
  };

  /** A delivery that must be acknowledged (2xx), quickly. */
  const expectAck = async (d: Delivery, check: string, accept3xx = false) => {
    const answer = await post(d);
    const violations: ActiveFinding[] = [];
    const warnings: ActiveFinding[] = [];
    if (answer.failure === "timeout") {
      violations.push({
        in: "receiver.answer",
        check: "time_to_ack",
        pointer: "",
        message: `no answer within ${options.timeoutMs} ms; the service counts the delivery as failed and sends it again`,
      });
    } else if (answer.status === 0) {
      violations.push({
        in: "receiver.answer",
        check,
        pointer: "",
        message:
          answer.failure === "refused"
            ? "the connection was refused: nothing listens at this URL"
            : "the connection closed without an answer",
      });
    } else {
      const acked =
        (answer.status >= 200 && answer.status < 300) ||
        (accept3xx && answer.status < 400 && answer.status >= 300);
      if (!acked)
        violations.push({
          in: "receiver.answer",
          check,
          pointer: "",
          message: `answered ${answer.status}; the service treats anything but 2xx as not acknowledged and sends it again`,
        });
      if (answer.ms > slowMs)
        warnings.push({
          in: "receiver.answer",
          check: "time_to_ack",
          pointer: "",
          message: `acknowledged after ${Math.round(answer.ms)} ms (over ${slowMs} ms): the document says respond quickly; acknowledge first, process afterwards`,
        });
    }
    return record(d, answer, violations, warnings);
  };

  /** A delivery that must not be acknowledged (credentials missing or wrong). */
  const expectRefusal = async (d: Delivery) => {
    const answer = await post(d);
    const violations: ActiveFinding[] = [];
    if (answer.status >= 200 && answer.status < 300)
      violations.push({
        in: "receiver.answer",
        check: "credentials_required",
        pointer: "",
        message: `answered ${answer.status}: a delivery ${d.auth ? "with wrong" : "without"} credentials was acknowledged, so anyone can post events to this URL`,
      });
    return record(d, answer, violations, []);
  };

  /**
   * After a hostile request: is the receiver still there? Any answer says so, and so does a slow one
   * (time_to_ack reports slowness); a refused or dropped connection says it is gone.
   */
  const stillAnswers = async (): Promise<boolean> => {
    const first = events[0];
    if (!first) return true;
    const answer = await post(eventDelivery(first, "liveness", fresh(first.payload)));
    return answer.status > 0 || answer.failure === "timeout";
  };

  // 1. Every example of every event, the Test button's body among them (2xx or 3xx passes it).
  for (const d of events) {
    const test = d.event === "test";
    await expectAck(
      eventDelivery(d, test ? "the Test button's body" : `example ${d.event} (${d.example})`),
      "acknowledged",
      test,
    );
  }
  // 2. The same delivery twice: retries make duplicates.
  const created = events.find((d) => d.event === "created") ?? events[0];
  if (created) {
    const once = fresh(created.payload);
    for (const n of [1, 2])
      await expectAck(
        {
          ...eventDelivery(
            created,
            `the same ${created.event} delivery, ${n === 1 ? "first" : "again"}`,
            once,
          ),
          phase: "duplicates",
        },
        "duplicate_acknowledged",
      );
    // 3. What the service may send one day: a new event type, members the contract does not list.
    const known = knownEvents();
    const unknown = known.has(UNKNOWN_EVENT) ? `${UNKNOWN_EVENT}.next` : UNKNOWN_EVENT;
    await expectAck(
      {
        ...eventDelivery(created, `an event type the contract does not have`, {
          ...(fresh(created.payload) as object),
          event: unknown,
        }),
        phase: "evolution",
      },
      "unknown_event_acknowledged",
    );
    await expectAck(
      {
        ...eventDelivery(created, "members the contract does not list", {
          ...(fresh(created.payload) as object),
          delivery_attempt: 1,
          metadata: { added_later: true },
        }),
        phase: "evolution",
      },
      "extra_members_acknowledged",
    );
    // 4. Credentials: none, and wrong ones.
    if (auth) {
      await expectRefusal({
        ...eventDelivery(created, "no credentials", fresh(created.payload)),
        phase: "credentials",
        auth: undefined,
        rightAuth: false,
      });
      await expectRefusal({
        ...eventDelivery(created, "wrong credentials", fresh(created.payload)),
        phase: "credentials",
        auth: wrongAuth(auth),
        rightAuth: false,
      });
    } else {
      notes.push(
        "no --auth given: deliveries were sent without credentials and the credential checks were not run",
      );
    }
  }
  // 5. The workflow URL: case.completed with a fresh webhook id, then a type the contract does not have.
  if (options.workflowUrl) {
    for (const d of workflow) {
      const delivery: Delivery = {
        case: `example ${d.event} (${d.example})`,
        phase: "workflow",
        operationId: `${d.channel}.${d.event}`,
        workflow: true,
        headers: { ...d.headers, "X-Workflow-Webhook-Id": freshWebhookId() },
        body: json(d.payload),
      };
      await expectAck(delivery, "workflow_acknowledged");
      await expectAck(
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
  } else {
    notes.push("no --workflow-url given: the workflow case deliveries were not sent");
  }
  if (created) {
    // 6. Malformed JSON: refusing it (4xx) is right; acknowledging it hides a fault; no answer is a crash.
    const malformed: Delivery = {
      ...eventDelivery(created, "malformed JSON"),
      phase: "hostile",
      body: Buffer.from('{"event": "created", "transaction_id": '),
    };
    const bad = await post(malformed);
    const violations: ActiveFinding[] = [];
    const warnings: ActiveFinding[] = [];
    if (bad.status === 0 || bad.status >= 500)
      violations.push({
        in: "receiver.answer",
        check: "malformed_json_refused",
        pointer: "",
        message:
          bad.status === 0
            ? "the connection closed without an answer: the receiver crashed on a body it could not parse"
            : `answered ${bad.status}: the receiver failed on a body it could not parse (a 4xx says the body is at fault)`,
      });
    else if (bad.status >= 200 && bad.status < 300)
      warnings.push({
        in: "receiver.answer",
        check: "malformed_json_refused",
        pointer: "",
        message: `answered ${bad.status}: acknowledging a body that cannot be processed hides the fault; answer 400`,
      });
    if (!(await stillAnswers()))
      violations.push({
        in: "receiver.answer",
        check: "malformed_json_refused",
        pointer: "",
        message: "after malformed JSON the receiver no longer answers",
      });
    record(malformed, bad, violations, warnings);
    // 7. A 10 MB body, last: any answer, or a closed connection; the receiver must answer the next delivery.
    const head = Buffer.from('{"event":"created","message":"');
    const tail = Buffer.from('"}');
    const large: Delivery = {
      ...eventDelivery(created, `a ${LARGE_BODY_BYTES / 1024 / 1024} MB body`),
      phase: "hostile",
      body: Buffer.concat([head, Buffer.alloc(LARGE_BODY_BYTES - head.length - tail.length, 0x61), tail]),
      bodyShell: `printf '%s' '{"event":"created","message":"'; head -c ${LARGE_BODY_BYTES - head.length - tail.length} /dev/zero | tr '\\0' a; printf '"}'`,
    };
    const answer = await post(large);
    const alive = await stillAnswers();
    record(
      large,
      answer,
      alive
        ? []
        : [
            {
              in: "receiver.answer",
              check: "large_body_survived",
              pointer: "",
              message: "after a 10 MB body the receiver no longer answers",
            },
          ],
      [],
    );
  }
  return { results, notes };
}

/** The reproducer of a delivery: credentials as variables, the body as sent. */
function reproducer(d: Delivery, options: BatteryOptions): string {
  const headers: CurlHeader[] = Object.entries(d.headers).map(([n, v]) => [n, { literal: v }]);
  if (d.auth && d.rightAuth)
    headers.push([
      "Authorization",
      {
        shell:
          d.auth.scheme === "bearer"
            ? "Bearer $IDV_RECEIVER_TOKEN"
            : "Basic $(printf '%s' \"$IDV_RECEIVER_USER:$IDV_RECEIVER_PASSWORD\" | base64)",
      },
    ]);
  else if (d.auth?.scheme === "bearer") headers.push(["Authorization", { literal: authorization(d.auth) }]);
  else if (d.auth)
    // The user name is part of the configured credentials: a variable too; the wrong password is the test's own.
    headers.push([
      "Authorization",
      { shell: `Basic $(printf '%s' "$IDV_RECEIVER_USER:${d.auth.password}" | base64)` },
    ]);
  // The workflow URL's hard-to-guess path is what protects it: a variable, like a credential.
  const url = d.workflow ? "$IDV_WORKFLOW_URL" : eventsUrlWord(options.url);
  return curlCommand({ method: "POST", url, headers, body: d.bodyShell ? { shell: d.bodyShell } : d.body });
}

/** The variable the reproducers read the events URL's query from: it often holds the receiver's secret. */
export const QUERY_VARIABLE = "IDV_RECEIVER_QUERY";

/** The events URL in a reproducer: as written, its query (if any) read from $IDV_RECEIVER_QUERY. */
function eventsUrlWord(url: URL): string | { shell: string } {
  const base = `${url.origin}${url.pathname}`;
  return url.search === "" ? base : { shell: `${shellQuote(`${base}?`)}"$${QUERY_VARIABLE}"` };
}
