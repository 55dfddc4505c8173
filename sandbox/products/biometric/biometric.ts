// Biometric verification (POST /api/v2/send_text and its resend and PDF): the events it sends, its
// handlers, and its slice of the --state file. Its lifecycle is lifecycle.ts's; its captures captures.ts's.
import type { PayloadOf } from "../../deliveries/types.js";
import { jsonBytes, TIMER_BYTES } from "../../state/byte-budget.js";
import { isObject, isString } from "../../state/checks.js";
import type { ProductSlice } from "../../state/store.js";
import { error, file, notFound } from "../answers.js";
import type { ServiceHandlers } from "../context.js";
import { renderPdf } from "../files/pdf.js";
import { biometricJourney, smsFails } from "../magic.js";
import { TransitionError } from "./lifecycle.js";
import type { BiometricEvent, BiometricRecord } from "./record.js";

export type { BiometricEvent } from "./record.js";

// Request bodies reach here only after the contract's schema accepted them.

/** Timers a verification holds at once at most (lifespan, a journey step or retry, the pending window, the archive). */
const BIOMETRIC_TIMERS = 4;

const STATES = new Set(["created", "pending", "completed", "archived", "error"]);

/**
 * The bytes of each verification member's JSON. A verification is made whole and then only replaced
 * (lifecycle.ts sets record.verification anew, or to null), never changed, so it is measured once,
 * not again with every event its record adds.
 */
const verificationBytes = new WeakMap<object, number>();

/** jsonBytes(record), its verification (kilobytes, kept from completed to archived) measured once. */
export function biometricRecordBytes(record: BiometricRecord): number {
  const { verification } = record;
  if (typeof verification !== "object" || verification === null) return jsonBytes(record);
  let bytes = verificationBytes.get(verification);
  if (bytes === undefined) {
    bytes = jsonBytes(verification);
    verificationBytes.set(verification, bytes);
  }
  // The record's JSON with `null` (4 bytes) where its verification's stands.
  return jsonBytes({ ...record, verification: null }) - 4 + bytes;
}

/** Biometric verifications, by transaction id; the state file holds the records alone. */
export const BIOMETRIC: ProductSlice<string, BiometricRecord> = {
  name: "biometric",
  timerBytes: BIOMETRIC_TIMERS * TIMER_BYTES,
  bytesOf: biometricRecordBytes,
  saved: { form: "values", keyOf: (r) => r.transaction_id },
  restorable: (r) =>
    isObject(r) && isString(r.transaction_id) && STATES.has(r.state as string) && Array.isArray(r.events),
};

/** The body of a biometric webhook event about a record, as the service sends it. */
export function biometricBody<E extends BiometricEvent>(
  record: BiometricRecord,
  event: E,
  verification: Record<string, unknown> | null,
  message: string | null,
): PayloadOf<"biometricWebhook", E> {
  // The contract's schemas check it before it is queued (Sandbox.emit): the type says what it should be.
  return {
    event,
    reference: record.reference,
    external_id: record.external_id,
    phone_number: record.phone_number,
    transaction_id: record.transaction_id,
    verification,
    message,
  } as unknown as PayloadOf<"biometricWebhook", E>;
}

export const biometricHandlers = {
  createBiometricVerification: ({ sandbox, op, value }) => {
    if (value.contact_phone !== undefined && smsFails(value.contact_phone))
      return error(op, 400, "SMS_FAIL", "The SMS could not be sent to this number.");
    const sendSms = value.contact_phone !== undefined && value.communication_method !== "link";
    const journey = biometricJourney(value);
    const record = sandbox.biometric.create({
      reference: value.reference,
      ...(value.external_id === undefined ? {} : { external_id: value.external_id }),
      ...(value.contact_phone === undefined ? {} : { contact_phone: value.contact_phone }),
      ...(value.firstname === undefined ? {} : { firstname: value.firstname }),
      ...(value.lastname === undefined ? {} : { lastname: value.lastname }),
      sendSms,
      ...(journey ? { journey } : {}),
    });
    return {
      status: 200,
      json: sendSms
        ? { transaction_id: record.transaction_id }
        : { transaction_id: record.transaction_id, start_process_url: record.start_process_url },
    };
  },
  resendBiometricVerification: ({ sandbox, op, value, param }) => {
    if (!sandbox.biometric.find(param ?? "")) return notFound(op, "biometric verification");
    const phone = value?.contact_phone;
    if (phone !== undefined && smsFails(phone))
      return error(op, 400, "SMS_FAIL", "The SMS could not be sent to this number.");
    try {
      const replacement = sandbox.biometric.resend(param ?? "", phone);
      return { status: 200, json: { transaction_id: replacement.transaction_id } };
    } catch (e) {
      if (e instanceof TransitionError) return error(op, 422, "VALIDATION_FAILED", e.message);
      throw e;
    }
  },
  getBiometricPdf: ({ sandbox, req, op, param }) => {
    const record = sandbox.biometric.find(param ?? "");
    if (!record) return notFound(op, "biometric verification");
    const refusal = sandbox.biometric.pdfRefusal(record);
    if (refusal) return error(op, 400, refusal.code, refusal.message);
    if (!req.head) sandbox.biometric.downloaded(record.transaction_id);
    const pdf = renderPdf("Biometric verification report", [
      `Reference: ${record.reference}`,
      `Transaction: ${record.transaction_id}`,
      `Name: ${[record.firstname, record.lastname].filter(Boolean).join(" ")}`,
      `Status: ${record.status}${record.reviewed ? " (reviewed)" : ""}`,
    ]);
    return file(pdf, `biometric-${record.transaction_id}.pdf`);
  },
} satisfies Partial<ServiceHandlers>;
