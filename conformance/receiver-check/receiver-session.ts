// One run of the receiver battery against one receiver: how a delivery is posted, how its answer is
// judged (acknowledged, refused, still answering) and recorded, and the reproducer of a failed one.
import { randomBytes, randomUUID } from "node:crypto";
import type { ActiveCheckName } from "../probe/active-checks.js";
import type { ActiveFinding, ActiveResult } from "../probe/active-report.js";
import { type CurlHeader, curlCommand, shellQuote } from "../probe/curl.js";
import { type Answer, send } from "../probe/http-send.js";
import {
  bodyBytes,
  type FreshIds,
  livenessDelivery,
  type PlanContext,
  planContext,
  type PlannedDelivery,
} from "./battery-cases.js";
import { exampleDeliveries } from "./example-deliveries.js";
import { authorization, type ReceiverAuth, wrongAuth } from "./receiver-auth.js";

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
/** Bytes of a receiver's answer kept (only its status is judged). */
const ANSWER_BYTES = 64 * 1024;
/** The variable the reproducers read the events URL's query from: it often holds the receiver's secret. */
export const QUERY_VARIABLE = "IDV_RECEIVER_QUERY";
/** The variable the CLI reads the credentials from when --auth is not given; the reproducers read it too. */
export const AUTH_VARIABLE = "IDV_RECEIVER_AUTH";

/** One request of the battery. */
export interface Delivery {
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

/** Ids the receiver has not seen: a random transaction id, a random workflow webhook id. */
export const RANDOM_IDS: FreshIds = {
  transactionId: () => randomUUID(),
  webhookId: () => `whk_probe_${randomBytes(10).toString("hex")}`,
};

/** A finding on the receiver's answer. */
export const answerFinding = (check: ActiveCheckName, message: string): ActiveFinding => ({
  in: "receiver.answer",
  check,
  pointer: "",
  message,
});

/** The battery's state against one receiver: what it sends, and the results and notes so far. */
export class ReceiverSession {
  readonly results: ActiveResult[] = [];
  readonly notes: string[] = [];
  /** The status of each delivery to the events URL that must be acknowledged (a credentials hint reads them). */
  readonly ackStatuses: number[] = [];
  readonly slowMs: number;
  readonly auth: ReceiverAuth | undefined;
  /** What the cases plan from: the contract's example deliveries, with random fresh ids. */
  readonly context: PlanContext;

  constructor(readonly options: BatteryOptions) {
    this.slowMs = options.slowMs ?? SLOW_ACK_MS;
    this.auth = options.auth;
    this.context = planContext(exampleDeliveries(), RANDOM_IDS);
  }

  /** A planned delivery as sent: its credentials resolved, its body as bytes. */
  delivery(p: PlannedDelivery): Delivery {
    const auth =
      p.auth === "right" ? this.auth : p.auth === "wrong" && this.auth ? wrongAuth(this.auth) : undefined;
    const repeated = "repeated" in p.body ? p.body.repeated : undefined;
    return {
      case: p.case,
      phase: p.phase,
      operationId: p.operationId,
      workflow: p.target === "workflow",
      headers: { ...p.headers },
      auth,
      rightAuth: p.auth === "right" && auth !== undefined,
      body: bodyBytes(p.body),
      ...(repeated
        ? {
            bodyShell: `printf '%s' ${shellQuote(repeated.head)}; head -c ${repeated.count} /dev/zero | tr '\\0' ${shellQuote(repeated.repeat)}; printf '%s' ${shellQuote(repeated.tail)}`,
          }
        : {}),
    };
  }

  /** Send a delivery; its answer, or how it failed. */
  post(d: Delivery): Promise<Answer> {
    const url = d.workflow ? this.options.workflowUrl! : this.options.url;
    const headers: [string, string][] = Object.entries(d.headers);
    if (d.auth) headers.push(["Authorization", authorization(d.auth)]);
    return send(
      { method: "POST", url, headers, body: d.body },
      { timeoutMs: this.options.timeoutMs, maxBodyBytes: ANSWER_BYTES },
    );
  }

  /** Keep the result of a delivery (with its reproducer when it failed). */
  record(d: Delivery, answer: Answer, violations: ActiveFinding[], warnings: ActiveFinding[]): ActiveResult {
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
    if (violations.length > 0) result.curl = reproducer(d, this.options);
    this.results.push(result);
    this.options.onResult?.(result);
    return result;
  }

  /** A delivery that must be acknowledged (2xx), quickly. */
  async expectAck(d: Delivery, check: ActiveCheckName, accept3xx = false): Promise<ActiveResult> {
    const answer = await this.post(d);
    if (!d.workflow) this.ackStatuses.push(answer.status);
    const violations: ActiveFinding[] = [];
    const warnings: ActiveFinding[] = [];
    if (answer.failure === "timeout") {
      violations.push(
        answerFinding(
          "time_to_ack",
          `no answer within ${this.options.timeoutMs} ms; the service counts the delivery as failed and sends it again`,
        ),
      );
    } else if (answer.status === 0) {
      violations.push(
        answerFinding(
          check,
          answer.failure === "refused"
            ? "the connection was refused: nothing listens at this URL"
            : "the connection closed without an answer",
        ),
      );
    } else {
      const acked =
        (answer.status >= 200 && answer.status < 300) ||
        (accept3xx && answer.status < 400 && answer.status >= 300);
      if (!acked)
        violations.push(
          answerFinding(
            check,
            `answered ${answer.status}; the service treats anything but 2xx as not acknowledged and sends it again`,
          ),
        );
      if (answer.ms > this.slowMs)
        warnings.push(
          answerFinding(
            "time_to_ack",
            `acknowledged after ${Math.round(answer.ms)} ms (over ${this.slowMs} ms): the document says respond quickly; acknowledge first, process afterwards`,
          ),
        );
    }
    return this.record(d, answer, violations, warnings);
  }

  /** A delivery that must not be acknowledged (credentials missing or wrong). */
  async expectRefusal(d: Delivery): Promise<ActiveResult> {
    const answer = await this.post(d);
    const violations: ActiveFinding[] = [];
    if (answer.status >= 200 && answer.status < 300)
      violations.push(
        answerFinding(
          "credentials_required",
          `answered ${answer.status}: a delivery ${d.auth ? "with wrong" : "without"} credentials was acknowledged, so anyone can post events to this URL`,
        ),
      );
    return this.record(d, answer, violations, []);
  }

  /**
   * After a hostile request: is the receiver still there? Any answer says so, and so does a slow one
   * (time_to_ack reports slowness); a refused or dropped connection says it is gone.
   */
  async stillAnswers(): Promise<boolean> {
    const liveness = livenessDelivery(this.context);
    if (!liveness) return true;
    const answer = await this.post(this.delivery(liveness));
    return answer.status > 0 || answer.failure === "timeout";
  }
}

/**
 * The shell words of the configured credentials, read from $IDV_RECEIVER_AUTH as the CLI reads it
 * (`bearer:TOKEN` or `basic:USER:PASS`): what follows the scheme's colon, and the user name alone.
 */
const AUTH_REST = `\${${AUTH_VARIABLE}#*:}`;
const AUTH_USER = `$(printf '%s' "$${AUTH_VARIABLE}" | cut -d: -f2)`;
/** base64 on one line (GNU base64 wraps at 76 characters, which would break the header). */
const base64Of = (printfArgs: string) => `$(printf ${printfArgs} | base64 | tr -d '\\n')`;

/** The reproducer of a delivery: credentials as variables, the body as sent. */
function reproducer(d: Delivery, options: BatteryOptions): string {
  const headers: CurlHeader[] = Object.entries(d.headers).map(([n, v]) => [n, { literal: v }]);
  if (d.auth && d.rightAuth)
    headers.push([
      "Authorization",
      {
        shell:
          d.auth.scheme === "bearer" ? `Bearer ${AUTH_REST}` : `Basic ${base64Of(`'%s' "${AUTH_REST}"`)}`,
      },
    ]);
  else if (d.auth?.scheme === "bearer") headers.push(["Authorization", { literal: authorization(d.auth) }]);
  else if (d.auth)
    // The user name is part of the configured credentials: a variable too; the wrong password is the test's own.
    headers.push([
      "Authorization",
      { shell: `Basic ${base64Of(`'%s:%s' "${AUTH_USER}" ${shellQuote(d.auth.password)}`)}` },
    ]);
  // The workflow URL's hard-to-guess path is what protects it: a variable, like a credential.
  const url = d.workflow ? "$IDV_WORKFLOW_URL" : eventsUrlWord(options.url);
  return curlCommand({ method: "POST", url, headers, body: d.bodyShell ? { shell: d.bodyShell } : d.body });
}

/** The events URL in a reproducer: as written, its query (if any) read from $IDV_RECEIVER_QUERY. */
function eventsUrlWord(url: URL): string | { shell: string } {
  const base = `${url.origin}${url.pathname}`;
  return url.search === "" ? base : { shell: `${shellQuote(`${base}?`)}"$${QUERY_VARIABLE}"` };
}
