// The control API (/_sandbox/…), contract-first: its routes and request schemas come from its own
// OpenAPI document (generated/sandbox-control.json), and every answer is one of its schemas.
import controlDocument from "../../generated/sandbox-control.json" with { type: "json" };
import { loadOperations, type Operation } from "../../src/server/operations.js";
import { AjvCompiler } from "../../src/contract/schema-validator.js";
import { attachment } from "../products/files/asset-files.js";
import { CONTROL_INDEX } from "./index-page.js";
import type { BiometricRecord } from "../products/biometric/lifecycle.js";
import { TransitionError } from "../products/biometric/lifecycle.js";
import { MAX_RECEIVERS, receiverAuthProblem, receiverUrl } from "../deliveries/receivers.js";
import type { Delivery, Receiver, ReceiverAuth } from "../deliveries/types.js";
import { parseDuration } from "./duration.js";
import { SELF_RECEIVER } from "../http/self-address.js";
import type { DeliveryQueue } from "../deliveries/queue.js";
import type { Answer } from "../../src/server/answer.js";
import type { Sandbox } from "../sandbox.js";
import { EDD } from "../products/edd.js";
import { completeWorkflow, newWorkflowCase, WORKFLOW, type WorkflowCase } from "../products/workflow.js";
import type { operations } from "../../generated/sandbox-control-types.js";
import { TEST_EVENT, trigger, type TriggerRequest } from "./trigger.js";
import type { Json } from "../../src/contract/json.js";

// Request bodies reach the handlers only after the control document's schema accepted them.

/** The path prefix of the control API. */
export { CONTROL_PREFIX } from "../http/paths.js";

export const controlOperations: Operation[] = loadOperations(controlDocument);
const compiler = new AjvCompiler(controlDocument);

/** A control API error answer. */
export const controlError = (status: number, code: string, message: string): Answer => ({
  status,
  json: { error_code: code, message },
});

/** The 400 for a body member the schema accepted but the handler cannot use: where, then why. */
const invalidMember = (pointer: string, why: string): Answer =>
  controlError(400, "BAD_REQUEST", `Invalid request body: ${pointer}: ${why}.`);

/** The message of a refused control body: the member and the rule, never the value. */
export function describeControlBody(op: Operation, value: unknown): string | undefined {
  if (!op.body) return undefined;
  const validate = compiler.validator(op.body.schemaPointer);
  if (validate(value)) return undefined;
  const errors = validate.errors ?? [];
  // A oneOf branch whose discriminating const failed (auth's scheme) is not the one meant: its
  // errors would blame a member of the other scheme ("missing token" for a basic username).
  const otherBranches = errors
    .filter((e) => e.keyword === "const")
    .map((e) => /^(.*\/oneOf\/\d+\/)/.exec(e.schemaPath)?.[1])
    .filter((prefix): prefix is string => prefix !== undefined);
  const meant = errors.filter(
    (e) => e.keyword !== "oneOf" && !otherBranches.some((prefix) => e.schemaPath.startsWith(prefix)),
  );
  const first = meant[0] ?? errors.find((e) => e.keyword !== "oneOf") ?? errors[0];
  if (!first) return "The request body is invalid.";
  const params = first.params as Record<string, unknown>;
  const where = `${first.instancePath || "/"}${
    first.keyword === "required" ? ` is missing member "${String(params.missingProperty)}"` : ""
  }`;
  const why =
    first.keyword === "required"
      ? ""
      : first.keyword === "additionalProperties"
        ? " has a member the control API does not take"
        : ` ${first.message ?? "is invalid"}`;
  return `Invalid request body: ${where}${why}.`;
}

const receiverView = (r: Receiver) => ({
  id: r.id,
  url: r.url,
  kind: r.kind,
  auth_scheme: r.auth?.scheme ?? null,
  created_at: r.created_at,
});

const deliveryView = (d: Delivery) => ({
  id: d.id,
  receiver_id: d.receiver_id,
  channel: d.channel,
  event: d.event,
  subject: d.subject,
  created_at: d.created_at,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at === null ? null : new Date(d.next_attempt_at).toISOString(),
  headers: d.headers,
  payload: JSON.parse(d.body),
  ...(d.replay_of ? { replay_of: d.replay_of } : {}),
});

/** The deliveries a wait left pending when it answered: how many, and their ids. */
const inFlightView = (unsettled: readonly Delivery[]) => ({
  count: unsettled.length,
  deliveries: unsettled.map((d) => d.id),
});

const biometricView = (r: BiometricRecord) => ({
  transaction_id: r.transaction_id,
  reference: r.reference,
  state: r.state,
  status: r.status,
  reviewed: r.reviewed,
  journey: r.journey,
  created_at: r.created_at,
  updated_at: r.updated_at,
  pdf_downloaded_at: r.pdf_downloaded_at,
  replaced_by: r.replaced_by,
  replaces: r.replaces,
  events: r.events,
});

/** A receiver URL, or an Error saying what is wrong with it (the rule of deliveries/receivers.ts). */
export { receiverUrl };

const ok = (json: unknown, status = 200): Answer => ({ status, json });

/** The control API's operation ids, from its own generated types. */
type ControlOperationId = keyof operations;

/** What a handler of one control operation gets: the request, the sandbox, and the answers several share. */
interface ControlContext {
  sandbox: Sandbox;
  op: Operation;
  /** Path parameters, decoded, in template order; `param` is the first ("" when none). */
  params: string[];
  param: string;
  query: Record<string, string | string[]>;
  /** The accepted JSON body, if any. */
  value: Json;
  /** The webhook deliveries and their receivers. */
  deliveries: DeliveryQueue;
  /** The clock's answer: the virtual time and the offset. */
  clock: () => Answer;
  /** A transition of the path's biometric verification, answered as its view (404, 409 as they fail). */
  bio: (act: () => BiometricRecord) => Answer;
  /** The path's workflow case, if any. */
  workflowCase: () => WorkflowCase | undefined;
}

/**
 * The control API's operations by operation id. Typed by the control document's own list, so an
 * operation added there fails the build until it has its entry here: one entry in one place.
 */
const handlers: {
  readonly [Id in ControlOperationId]: (c: ControlContext) => Answer | Promise<Answer>;
} = {
  getControlIndex: ({ sandbox }) => ok({ operations: CONTROL_INDEX, docs: sandbox.docsPath }),
  getClock: ({ clock }) => clock(),
  advanceClock: async ({ sandbox, value }) => {
    let ms: number;
    try {
      ms = parseDuration(value.duration);
    } catch (e) {
      return invalidMember("/duration", (e as Error).message);
    }
    let unsettled: Delivery[];
    try {
      ({ unsettled } = await sandbox.advance(ms));
    } catch (e) {
      // Past the last date a record can write: refused, the clock where it was.
      if (e instanceof RangeError) return invalidMember("/duration", e.message);
      throw e;
    }
    return ok({ ...sandbox.clockReading(), in_flight: inFlightView(unsettled) });
  },
  settleDeliveries: async ({ sandbox }) => {
    const { until, deliveries, unsettled } = await sandbox.settled();
    return ok({ until: new Date(until).toISOString(), deliveries, in_flight: inFlightView(unsettled) });
  },
  triggerEvent: ({ sandbox, value }) => trigger(sandbox, value as TriggerRequest),
  resetSandbox: async ({ sandbox, value, clock }) => {
    await sandbox.reset({ receivers: value?.receivers === true });
    const receivers = sandbox.receivers().map(receiverView);
    return ok({ clock: clock().json, receivers });
  },
  listReceivers: ({ sandbox }) => ok({ receivers: sandbox.receivers().map(receiverView) }),
  createReceiver: ({ sandbox, deliveries, value }) => {
    let url: string;
    try {
      url = receiverUrl(value.url);
    } catch (e) {
      return invalidMember("/url", (e as Error).message);
    }
    if (sandbox.pointsAtItself(url)) return invalidMember("/url", SELF_RECEIVER);
    // Checked now, not at each delivery, by the rule the CLI and the state file use too.
    const authProblem = value.auth === undefined ? undefined : receiverAuthProblem(value.auth);
    if (authProblem) return invalidMember(`/auth${authProblem.member}`, authProblem.why);
    const kind = value.kind === "workflow" ? "workflow" : "events";
    if (kind === "workflow" && value.auth)
      return invalidMember("/auth", "workflow deliveries carry no credentials");
    if (sandbox.receivers().length >= MAX_RECEIVERS)
      return controlError(
        409,
        "LIMIT_REACHED",
        `At most ${MAX_RECEIVERS} receivers can be registered; remove one before adding another.`,
      );
    return ok(receiverView(deliveries.addReceiver(url, kind, value.auth as ReceiverAuth | undefined)), 201);
  },
  deleteReceiver: ({ deliveries, param }) =>
    deliveries.removeReceiver(param)
      ? { status: 204 }
      : controlError(404, "NOT_FOUND", "No receiver has this id."),
  testReceiver: async ({ sandbox, deliveries, param }) => {
    const receiver = deliveries.receivers.get(param);
    if (!receiver) return controlError(404, "NOT_FOUND", "No receiver has this id.");
    if (receiver.kind !== "events")
      return controlError(409, "INVALID_TRANSITION", "Only an events receiver has a Test button.");
    if (sandbox.pointsAtItself(receiver.url))
      return controlError(409, "LOOP_DETECTED", `The receiver's url ${SELF_RECEIVER}.`);
    return ok(await deliveries.test(receiver, JSON.stringify(TEST_EVENT)));
  },
  listDeliveries: ({ deliveries: queue, query }) => {
    const one = (name: string) => {
      const v = query[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const status = one("status");
    if (status !== undefined && !["pending", "delivered", "failed"].includes(status))
      return controlError(400, "BAD_REQUEST", "Query parameter status must be pending, delivered or failed.");
    const filters: [keyof Delivery, string | undefined][] = [
      ["status", status],
      ["receiver_id", one("receiver_id")],
      ["subject", one("subject")],
      ["event", one("event")],
    ];
    const deliveries = queue
      .list()
      .filter((d) => filters.every(([key, want]) => want === undefined || d[key] === want));
    return ok({ deliveries: deliveries.map(deliveryView) });
  },
  getDelivery: ({ deliveries, param }) => {
    const d = deliveries.get(param);
    return d ? ok(deliveryView(d)) : controlError(404, "NOT_FOUND", "No delivery has this id.");
  },
  replayDelivery: ({ deliveries, param }) => {
    const d = deliveries.get(param);
    if (!d) return controlError(404, "NOT_FOUND", "No delivery has this id.");
    const replay = deliveries.replay(d);
    return replay
      ? ok(deliveryView(replay), 201)
      : controlError(
          409,
          "INVALID_TRANSITION",
          deliveries.replayRefusal(d) === "erased"
            ? "The verification was archived and the result this delivery carried erased: it cannot be sent again."
            : "The delivery's receiver was removed.",
        );
  },
  getBiometricVerification: ({ sandbox, param, bio }) =>
    bio(() => sandbox.biometric.find(param) as BiometricRecord),
  completeBiometricVerification: ({ sandbox, param, value, bio }) =>
    bio(() => sandbox.biometric.complete(param, value.status)),
  pendBiometricVerification: ({ sandbox, param, bio }) => bio(() => sandbox.biometric.pend(param, "fail")),
  reviewBiometricVerification: ({ sandbox, param, value, bio }) =>
    bio(() => sandbox.biometric.review(param, value.status)),
  editBiometricVerification: ({ sandbox, param, value, bio }) =>
    // Notes are the caller's bytes too: the lifecycle has the store count the record as it now is.
    bio(() => sandbox.biometric.edit(param, value?.notes ?? null)),
  downloadBiometricPdf: ({ sandbox, param, bio }) => bio(() => sandbox.biometric.downloaded(param)),
  failBiometricVerification: ({ sandbox, param, value, bio }) =>
    bio(() => sandbox.biometric.fail(param, value?.message)),
  createWorkflowCase: ({ sandbox, value }) => {
    const record = newWorkflowCase(sandbox, value);
    // Counted as what it holds: its names are the caller's, up to 200 characters each.
    sandbox.records.put(WORKFLOW, record.case_id, record);
    return ok(record, 201);
  },
  getWorkflowCase: ({ workflowCase }) => {
    const record = workflowCase();
    return record ? ok(record) : controlError(404, "NOT_FOUND", "No workflow case has this id.");
  },
  completeWorkflowCase: ({ sandbox, value, workflowCase }) => {
    const record = workflowCase();
    if (!record) return controlError(404, "NOT_FOUND", "No workflow case has this id.");
    if (record.status === "completed")
      return controlError(409, "INVALID_TRANSITION", "The workflow case is already completed.");
    completeWorkflow(sandbox, record, value.approval_status);
    return ok(record);
  },
  downloadEddAsset: ({ sandbox, params, param }) => {
    const record = sandbox.records.get(EDD, Number(param));
    const assetId = Number(params[1]);
    if (!record?.assets.some((a: { id: number }) => a.id === assetId))
      return controlError(404, "NOT_FOUND", "The EDD case has no asset with this id.");
    const file = sandbox.assetFiles.get(assetId);
    if (!file)
      return controlError(
        404,
        "NOT_FOUND",
        "The asset's bytes are not kept: the sandbox was restarted since the upload, or newer uploads took the 32 MiB the sandbox keeps.",
      );
    return {
      status: 200,
      bytes: file.bytes,
      headers: { "content-type": file.contentType, "content-disposition": attachment(file.fileName) },
    };
  },
};

/** Answer one control request whose body the control document accepted. */
export async function answerControl(
  sandbox: Sandbox,
  op: Operation,
  params: string[],
  query: Record<string, string | string[]>,
  value: Json,
): Promise<Answer> {
  const handler = Object.hasOwn(handlers, op.operationId)
    ? handlers[op.operationId as ControlOperationId]
    : undefined;
  if (!handler)
    return controlError(500, "SANDBOX_ERROR", "The control API has no handler for this operation.");
  const [param = ""] = params;
  return handler({
    sandbox,
    op,
    params,
    param,
    query,
    value,
    clock: () => ok(sandbox.clockReading()),
    deliveries: sandbox.queue,
    bio: (act) => {
      if (!sandbox.biometric.find(param))
        return controlError(404, "NOT_FOUND", "No biometric verification has this transaction_id.");
      try {
        return ok(biometricView(act()));
      } catch (e) {
        if (e instanceof TransitionError) return controlError(409, "INVALID_TRANSITION", e.message);
        throw e;
      }
    },
    workflowCase: () => sandbox.records.get(WORKFLOW, Number(param)),
  });
}
