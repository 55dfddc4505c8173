// The typed helper for the control API (`idv-contract/sandbox`): other repositories' tests drive the
// sandbox's clock, receivers, deliveries and transitions with it. Typed by the control API's own
// generated types; openapi-fetch underneath.
import createFetchClient from "openapi-fetch";
import type { components, paths } from "../../generated/sandbox-control-types.js";
import type { WebhookPayloads } from "../../generated/webhook-events.js";

type Schemas = components["schemas"];
export type SandboxClock = Schemas["Clock"];
export type SandboxSettled = Schemas["Settled"];
export type SandboxReceiver = Schemas["Receiver"];
export type SandboxDelivery = Schemas["Delivery"];
export type SandboxBiometricVerification = Schemas["BiometricVerification"];
export type SandboxWorkflowCase = Schemas["WorkflowCase"];
export type CreateReceiverRequest = Schemas["CreateReceiverRequest"];
export type SandboxTriggerRequest = Schemas["TriggerRequest"];
/** An event of the AsyncAPI contract, by the name `trigger` takes (`completed`, `case.completed`, …). */
export type SandboxTriggerEvent = {
  [C in keyof WebhookPayloads]: keyof WebhookPayloads[C] & string;
}[keyof WebhookPayloads];
export type SandboxTriggered = Schemas["Triggered"];
export type SandboxReset = Schemas["ResetDone"];
export type DeliveryFilter = NonNullable<paths["/_sandbox/deliveries"]["get"]["parameters"]["query"]>;

/** A control request the sandbox refused: its status, error_code and message. */
export class SandboxControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`sandbox control: ${status} ${code}: ${message}`);
    this.name = "SandboxControlError";
  }
}

/** What a control call resolves with, as far as it is read: openapi-fetch's result has these and more. */
export interface ControlOutcome<T> {
  data?: T;
  error?: unknown;
  response: Pick<Response, "ok" | "status" | "statusText">;
}

async function unwrap<T>(pending: Promise<ControlOutcome<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { error_code?: unknown; message?: unknown };
  throw new SandboxControlError(
    response.status,
    typeof body.error_code === "string" ? body.error_code : "UNKNOWN",
    typeof body.message === "string" ? body.message : response.statusText,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The openapi-fetch client of the control API. */
export type ControlApi = ReturnType<typeof createFetchClient<paths>>;
/** The calls the helpers make: openapi-fetch's, or those of a sandbox in this process (direct.ts). */
export type ControlCalls = Pick<ControlApi, "GET" | "POST" | "DELETE">;

/** The biometric verification's transitions, as the control API makes them. */
function biometricControl(calls: ControlCalls) {
  const tx = (transaction_id: string) => ({ params: { path: { transaction_id } } });
  return {
    get: (id: string) => unwrap(calls.GET("/_sandbox/biometric_verifications/{transaction_id}", tx(id))),
    /** created or pending → completed with a status. */
    complete: (id: string, status: "pass" | "review" | "fail") =>
      unwrap(
        calls.POST("/_sandbox/biometric_verifications/{transaction_id}/complete", {
          ...tx(id),
          body: { status },
        }),
      ),
    /** created → pending (data sources unavailable). */
    pending: (id: string) =>
      unwrap(calls.POST("/_sandbox/biometric_verifications/{transaction_id}/pending", tx(id))),
    /** An agent decides a review-status verification. */
    review: (id: string, status: "pass" | "fail") =>
      unwrap(
        calls.POST("/_sandbox/biometric_verifications/{transaction_id}/review", {
          ...tx(id),
          body: { status },
        }),
      ),
    /** A user edits a completed verification or adds notes. */
    edit: (id: string, notes: string | null = null) =>
      unwrap(
        calls.POST("/_sandbox/biometric_verifications/{transaction_id}/edit", { ...tx(id), body: { notes } }),
      ),
    /** As if the PDF were downloaded: archived 60 minutes later. */
    download: (id: string) =>
      unwrap(calls.POST("/_sandbox/biometric_verifications/{transaction_id}/download", tx(id))),
    /** An unexpected processing error. */
    error: (id: string, message?: string) =>
      unwrap(
        calls.POST("/_sandbox/biometric_verifications/{transaction_id}/error", {
          ...tx(id),
          body: message === undefined ? {} : { message },
        }),
      ),
  };
}

/** Workflow cases, created and completed through the control API. */
function workflowControl(calls: ControlCalls) {
  return {
    create: (
      body: NonNullable<
        paths["/_sandbox/workflow_cases"]["post"]["requestBody"]
      >["content"]["application/json"],
    ) => unwrap(calls.POST("/_sandbox/workflow_cases", { body })),
    get: (case_id: number) =>
      unwrap(calls.GET("/_sandbox/workflow_cases/{case_id}", { params: { path: { case_id } } })),
    complete: (case_id: number, approval_status: "approved" | "denied") =>
      unwrap(
        calls.POST("/_sandbox/workflow_cases/{case_id}/complete", {
          params: { path: { case_id } },
          body: { approval_status },
        }),
      ),
  };
}

/** A typed client of a running sandbox's control API (`baseUrl` is the sandbox's address). */
export function createSandboxControl(baseUrl: string, options: { fetch?: typeof fetch } = {}) {
  const api = controlApi(baseUrl, options.fetch);
  return controlOver(api, api);
}

/** The openapi-fetch client of the control API at `baseUrl`, on `fetch` when given. */
export const controlApi = (baseUrl: string, fetch?: typeof globalThis.fetch): ControlApi =>
  createFetchClient<paths>({ baseUrl, ...(fetch ? { fetch } : {}) });

/** The control helpers making their calls by `calls`, with `api` the openapi-fetch client users are given. */
export function controlOver(api: ControlApi, calls: ControlCalls) {
  const control = {
    /** The openapi-fetch client itself, for anything the helpers below do not cover. */
    api,
    /** The virtual time. */
    clock: () => unwrap(calls.GET("/_sandbox/clock")),
    /**
     * Advance the virtual clock by an ISO-8601 duration (`PT1H`, `P7D`). Resolves once every timer due
     * has run and every delivery that fell due has had its attempt answered or timed out, and recorded.
     */
    advance: (duration: string) => unwrap(calls.POST("/_sandbox/clock/advance", { body: { duration } })),
    /**
     * Resolves once every delivery due now has had its attempt answered or timed out, and recorded
     * (each attempt has a deadline): assert on `deliveries()` after it, without polling.
     */
    settled: () => unwrap(calls.POST("/_sandbox/settle")),
    /**
     * Send one event of the contract (`completed`, `case_completed`, `case.completed`, …) about a
     * record (`subject`), or one made for it, with members overridden (`set: [{ member:
     * "verification.status", value: "fail" }]`): refused, and nothing sent, when the payload
     * breaks the event's schema. Follow it with `settled()` to assert on its deliveries.
     */
    trigger: (
      event: SandboxTriggerEvent,
      options: { subject?: string; set?: SandboxTriggerRequest["set"] | Record<string, unknown> } = {},
    ) => {
      const set = Array.isArray(options.set)
        ? options.set
        : Object.entries(options.set ?? {}).map(([member, value]) => ({ member, value }));
      const body: SandboxTriggerRequest = {
        event,
        ...(options.subject === undefined ? {} : { subject: options.subject }),
        ...(set.length > 0 ? { set } : {}),
      };
      return unwrap(calls.POST("/_sandbox/trigger", { body }));
    },
    /**
     * Forget every record and delivery, and the clock's offset (for a `beforeEach`); the receivers
     * are kept unless `{ receivers: true }`. Resolves once done (and saved, with --state).
     */
    reset: (options: { receivers?: boolean } = {}) =>
      unwrap(calls.POST("/_sandbox/reset", { body: { receivers: options.receivers === true } })),
    /** Register a receiver: `events` (Basic or Bearer auth) or `workflow` (no credentials). */
    addReceiver: (body: CreateReceiverRequest) => unwrap(calls.POST("/_sandbox/receivers", { body })),
    /** The dashboard's Test button: posts the test event once; ok on a 2xx or 3xx answer. */
    testReceiver: (receiver_id: string) =>
      unwrap(calls.POST("/_sandbox/receivers/{receiver_id}/test", { params: { path: { receiver_id } } })),
    receivers: async () => (await unwrap(calls.GET("/_sandbox/receivers"))).receivers,
    removeReceiver: (receiver_id: string) =>
      unwrap(calls.DELETE("/_sandbox/receivers/{receiver_id}", { params: { path: { receiver_id } } })),
    /** Deliveries, oldest first, filtered by status, receiver, subject or event. */
    deliveries: async (query: DeliveryFilter = {}) =>
      (await unwrap(calls.GET("/_sandbox/deliveries", { params: { query } }))).deliveries,
    delivery: (delivery_id: string) =>
      unwrap(calls.GET("/_sandbox/deliveries/{delivery_id}", { params: { path: { delivery_id } } })),
    replay: (delivery_id: string) =>
      unwrap(calls.POST("/_sandbox/deliveries/{delivery_id}/replay", { params: { path: { delivery_id } } })),
    /** Poll the deliveries until one matches (every 50 ms, up to `timeoutMs`, 10 s by default). */
    async waitForDelivery(
      match: (delivery: SandboxDelivery) => boolean,
      query: DeliveryFilter = {},
      timeoutMs = 10_000,
    ): Promise<SandboxDelivery> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = (await control.deliveries(query)).find(match);
        if (found) return found;
        if (Date.now() > until)
          throw new Error(`sandbox control: no matching delivery within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    biometric: biometricControl(calls),
    workflow: workflowControl(calls),
  };
  return control;
}

/** The control helper's type. */
export type SandboxControl = ReturnType<typeof controlOver>;
