// A biometric verification as the sandbox keeps it (and the --state file holds it).
import type { EventOf } from "../../deliveries/types.js";
import type { Journey } from "../magic.js";

/** An event of the biometric webhook channel. */
export type BiometricEvent = EventOf<"biometricWebhook">;

export type BiometricState = "created" | "pending" | "completed" | "archived" | "error";
export type BiometricStatus = "pass" | "review" | "fail";

export interface BiometricRecord {
  transaction_id: string;
  reference: string;
  external_id: string | null;
  phone_number: string | null;
  firstname: string | null;
  lastname: string | null;
  start_process_url: string | null;
  state: BiometricState;
  status: BiometricStatus | null;
  reviewed: boolean;
  notes: string | null;
  /** The magic journey it takes by itself, if any. */
  journey: Journey | null;
  /** Whether the next pending retry succeeds (a pending journey) or fails (pending-then-error, or the control API). */
  pending_retry: "succeed" | "fail" | null;
  pending_since: string | null;
  created_at: string;
  updated_at: string;
  pdf_downloaded_at: string | null;
  replaced_by: string | null;
  replaces: string | null;
  /** The result sent with completed and updated events; erased on archive. */
  verification: Record<string, unknown> | null;
  /** Every event sent about this verification, in order. */
  events: { at: string; event: string }[];
}
