// The verification member of a biometric verification's completed and updated events: the AsyncAPI
// contract's example, made the record's (its status, names, notes, URLs and signed capture URLs).
import bundledAsyncApi from "../../../generated/asyncapi.json" with { type: "json" };
import { CONTROL_PREFIX } from "../../http/paths.js";
import { captureSigner } from "./captures.js";
import type { BiometricRecord } from "./record.js";

const completedExample = (
  bundledAsyncApi as unknown as {
    channels: {
      biometricWebhook: {
        messages: {
          completed: { examples: { payload: { verification: object; transaction_id: string } }[] };
        };
      };
    };
  }
).channels.biometricWebhook.messages.completed.examples[0]?.payload;

/**
 * The example's verification read once: its JSON text cut at the example's transaction id (joined
 * with a record's id, it is that record's), and the signer of its capture URLs.
 */
let template: { parts: string[]; signCaptures: ReturnType<typeof captureSigner> } | undefined;

function verificationTemplate(): NonNullable<typeof template> {
  if (template) return template;
  if (!completedExample) throw new Error("the AsyncAPI contract has no completed example");
  const { verification, transaction_id } = completedExample;
  template = {
    parts: JSON.stringify(verification).split(transaction_id),
    signCaptures: captureSigner((verification as { capture?: unknown }).capture),
  };
  return template;
}

/** The verification member of completed and updated events: the contract's example, made this record's. */
export function verificationOf(
  record: BiometricRecord,
  baseUrl: string,
  now: number,
): Record<string, unknown> {
  const { parts, signCaptures } = verificationTemplate();
  // A fresh object per event: the record keeps it, and the text is parsed anew each time.
  const v = JSON.parse(parts.join(record.transaction_id)) as Record<string, any>;
  const status = record.status ?? "pass";
  v.status = status;
  v.reviewed = record.reviewed;
  v.notes = record.notes;
  v.data.personal = {
    firstname: record.firstname ?? "",
    middle_name: null,
    lastname: record.lastname ?? "",
    date_of_birth: v.data.personal?.date_of_birth ?? "01/01/1990",
  };
  const pass = status === "pass";
  v.result.overall = pass;
  if (status === "review") v.result.address = false;
  if (status === "fail") {
    v.biometrics.overall = false;
    v.result.biometrics = false;
  }
  v.aply_portal_url = `${baseUrl}${CONTROL_PREFIX}/biometric_verifications/${record.transaction_id}`;
  v.pdf = `${baseUrl}/api/v2/biometric/pdf/${record.transaction_id}.pdf`;
  // Served by the sandbox, signed now: valid 15 minutes on the virtual clock (captures.ts).
  v.capture = signCaptures(v.capture, baseUrl, record.transaction_id, now);
  return v;
}
