// The sandbox's control API (/_sandbox, docs/sandbox.md) as the probe uses it: found by asking for
// it, the probe's receiver registered there, and the world outside the API stood in for when a
// journey waits for it (the end user finishes, an agent reviews, hours pass), as the sandbox's docs
// describe. Against any other deployment none of this is sent.
import { type Answer, send } from "./http-send.js";

/** A control request's answer is read up to this many bytes. */
const MAX_CONTROL_BYTES = 1024 * 1024;

/** What the probe does, in order, to bring about an event the journey waits for (after each: settle). */
export type StandIn =
  | { control: string; body?: unknown }
  | { advance: string }
  | { operationId: string; pathParam: string; body: unknown };

/** The sandbox's control API at a deployment's origin. */
export class SandboxControl {
  private constructor(
    private readonly origin: string,
    private readonly timeoutMs: number,
  ) {}

  /** The control API at `baseUrl`'s origin, or undefined when there is none (not a sandbox). */
  static async find(baseUrl: URL, timeoutMs: number): Promise<SandboxControl | undefined> {
    const control = new SandboxControl(baseUrl.origin, timeoutMs);
    const answer = await control.call("GET", "/_sandbox");
    const index = answer.status === 200 ? jsonOf(answer) : undefined;
    return Array.isArray((index as { operations?: unknown } | undefined)?.operations) ? control : undefined;
  }

  /** One control request. */
  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return send(
      {
        method,
        url: new URL(path, this.origin),
        headers: bytes ? [["Content-Type", "application/json"]] : [],
        ...(bytes ? { body: bytes } : {}),
      },
      { timeoutMs: this.timeoutMs, maxBodyBytes: MAX_CONTROL_BYTES },
    );
  }

  /** Register `url` as an events receiver with a bearer `token` of its own, as a real one has; its id. */
  async register(url: string, token: string): Promise<string | undefined> {
    const answer = await this.call("POST", "/_sandbox/receivers", {
      url,
      kind: "events",
      auth: { scheme: "bearer", token },
    });
    const id = (jsonOf(answer) as { id?: unknown } | undefined)?.id;
    return answer.status === 201 && typeof id === "string" ? id : undefined;
  }

  /** Remove the receiver registered. */
  async unregister(id: string): Promise<void> {
    await this.call("DELETE", `/_sandbox/receivers/${encodeURIComponent(id)}`);
  }

  /** Wait until every delivery due has been attempted (POST /_sandbox/settle). */
  async settle(): Promise<void> {
    await this.call("POST", "/_sandbox/settle");
  }

  /** Move the virtual clock forward (an ISO 8601 duration); answers once the deliveries due were made. */
  async advance(duration: string): Promise<void> {
    await this.call("POST", "/_sandbox/clock/advance", { duration });
  }
}

/** An answer's JSON body, or undefined. */
function jsonOf(answer: Answer): unknown {
  try {
    return JSON.parse(answer.body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** A biometric verification's control path. */
const bio = (action: string) => `/_sandbox/biometric_verifications/{id}/${action}`;

/**
 * What stands in, on the sandbox, for what makes the service send each event (by `channel:message`,
 * the webhook checker's key), tried in order until the event has arrived. An event the API's own
 * request sends (created, a resend's archived) needs none: its first try is only to settle.
 */
export function standIns(key: string, wantedStatus: string | undefined): StandIn[] {
  switch (key) {
    case "biometricWebhook:completed":
      // The end user finishes the journey, with the result the step expects (pass when it says none).
      return [{ control: bio("complete"), body: { status: wantedStatus ?? "pass" } }];
    case "biometricWebhook:pending":
      // A data source is unavailable.
      return [{ control: bio("pending") }];
    case "biometricWebhook:updated":
      // An agent reviews the result in the web application.
      return [{ control: bio("review"), body: { status: "pass" } }];
    case "biometricWebhook:archived":
      // Archived 60 minutes after the PDF is downloaded.
      return [{ advance: "PT61M" }];
    case "biometricWebhook:error":
      // Still pending 24 hours after pending began.
      return [{ advance: "PT25H" }];
    case "eddCaseCompleted:caseCompleted":
      // The service's team completes the case; the sandbox takes that as the status set to completed.
      return [{ operationId: "updateEddCaseStatus", pathParam: "id", body: { process_status: "completed" } }];
    default:
      return [];
  }
}
