// The words of a contract change: who it may break, where, and the versions compared. Its own file
// so that the classifiers of each part of the contract import it without importing classify.ts.
import type { Json } from "../../src/contract/json.js";
import type { ArazzoFile } from "../../src/arazzo/documents.js";

/** Who a change may break. */
export type Audience = "client" | "receiver";

/** One change of the contract, named by operation or event and member, in words. */
export interface ContractChange {
  audience: Audience;
  breaking: boolean;
  /** The operation or event: `POST /api/v4/pep_checks`, `event \`completed\` of \`biometricWebhook\``. */
  where: string;
  /** The member as a reviewer reads it (`request body member \`reference\``), when there is one. */
  member?: string;
  /** The whole change in one sentence. */
  text: string;
}

/** The bundled documents of one version; a document missing at that version is undefined. */
export interface ContractVersion {
  openapi?: Json;
  asyncapi?: Json;
  /** The workflows (arazzo/) of that version; a released workflow must still resolve. */
  arazzo?: ArazzoFile[];
  /** The receiver test vectors (vectors/receiver.json) of that version, when it had them. */
  receiverVectors?: Json;
}
