// Manual identity verification (POST /api/v2/manual_eidv): its records, built from the request's own
// data, its handlers, and its slice of the --state file.
import { randomUUID } from "node:crypto";
import type { Json } from "../../src/contract/json.js";
import { isObject, isString } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import { file, notFound } from "./answers.js";
import type { ServiceHandlers } from "./context.js";
import { renderPdf } from "./files/pdf.js";
import { screeningOutcome } from "./magic.js";
import { type Archivable, example, isoSeconds } from "./records.js";

// Request bodies reach here only after the contract's schema accepted them.

export interface ManualRecord extends Archivable {
  transaction_id: string;
  reference: string;
  names: string[];
  response: Json;
}

/** POST /api/v2/manual_eidv: results returned at once; magic last names choose a failure or a PEP match. */
export function manualVerification(request: Json, now: number): ManualRecord {
  const id = randomUUID();
  const outcome = screeningOutcome({
    last_name: request.individual?.last_name,
    reference: request.metadata?.reference,
  });
  const country = request.address?.country;
  const gbr = country === "GBR";
  const template = example(
    gbr ? "CreateManualVerificationGbrResponse" : "CreateManualVerificationNzlResponse",
  );
  const pass = outcome !== "fail";
  const results: Json = {
    overall: outcome === undefined,
    name: pass,
    date_of_birth: pass,
    address: pass,
    pep_clear: outcome !== "pep",
    ...(gbr ? { mortality_list_clear: true } : {}),
    document: !gbr && request.identity_document !== undefined && pass,
    verify_address: true,
  };
  const response: Json = {
    metadata: {
      reference: request.metadata.reference,
      ...(request.metadata.external_id === undefined ? {} : { external_id: request.metadata.external_id }),
      transaction_id: id,
      timestamp: isoSeconds(now),
      api_version: "v2",
      request_id: randomUUID(),
    },
    results,
    report: `/api/v2/manual_eidv/${id}/export_and_archive`,
    ...(outcome === "pep"
      ? { assets: { pep_watchlist: `/api/v2/manual_eidv/${id}/assets/pep_watchlist` } }
      : {}),
    data_sources: template.data_sources,
  };
  const individual = request.individual ?? {};
  const names = [individual.first_name, individual.middle_name, individual.last_name].filter(Boolean);
  return { transaction_id: id, reference: request.metadata.reference, names, response, archived: false };
}

/** Manual verifications, by transaction id; the state file holds the records alone. */
export const MANUAL: ProductSlice<string, ManualRecord> = {
  name: "manual",
  saved: { form: "values", keyOf: (r) => r.transaction_id },
  restorable: (r) => isObject(r) && isString(r.transaction_id),
};

export const manualHandlers = {
  createManualVerification: ({ value, now, store }) => {
    const record = manualVerification(value, now);
    store.put(MANUAL, record.transaction_id, record);
    return { status: 200, json: record.response };
  },
  exportAndArchiveManualVerification: ({ store, op, param, archive }) => {
    const record = store.get(MANUAL, param ?? "");
    // Archived means erased: the export is gone with it.
    if (!record || record.archived) return notFound(op, "manual verification");
    const pdf = renderPdf("Manual identity verification", [
      `Reference: ${record.reference}`,
      `Transaction: ${record.transaction_id}`,
      `Name: ${record.names.join(" ")}`,
      `Overall: ${record.response.results.overall ? "verified" : "not verified"}`,
    ]);
    // After the report is made: archiving erases the name it shows.
    archive(MANUAL, record.transaction_id, record);
    return file(pdf, `manual-verification-${record.transaction_id}.pdf`);
  },
  getManualPepWatchlist: ({ store, op, param }) => {
    const record = store.get(MANUAL, param ?? "");
    if (!record || record.archived || record.response.results.pep_clear)
      return notFound(op, "PEP watchlist report");
    const pdf = renderPdf("PEP watchlist results", [
      `Reference: ${record.reference}`,
      `Name: ${record.names.join(" ")}`,
      "Found on a PEP or sanctions watchlist (sandbox).",
    ]);
    return file(pdf, `pep-watchlist-${record.transaction_id}.pdf`);
  },
} satisfies Partial<ServiceHandlers>;
