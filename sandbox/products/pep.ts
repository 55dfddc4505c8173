// PEP and sanctions screening (POST /api/v4/pep_checks): its records, its handlers, and its slice of
// the --state file.
import type { Json } from "../../src/contract/json.js";
import { isObject } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import { file, intId, notFound } from "./answers.js";
import type { ServiceHandlers } from "./context.js";
import { renderPdf } from "./files/pdf.js";
import { screeningOutcome } from "./magic.js";
import type { Archivable } from "./records.js";

// Request bodies reach here only after the contract's schema accepted them.

export interface PepRecord extends Archivable {
  body: Json;
}

/** POST /api/v4/pep_checks: the person as sent; a magic last name puts them on a watchlist. */
export function pepCheck(id: number, request: Json, now: number): PepRecord {
  const [day, month, year] = String(request.date_of_birth).split("/");
  const at = new Date(now).toISOString();
  return {
    archived: false,
    body: {
      id,
      firstname: request.firstname,
      lastname: request.lastname,
      reference: request.reference,
      date_of_birth: `${year}-${month}-${day}`,
      created_at: at,
      updated_at: at,
      expires_at: new Date(now + 365 * 86_400_000).toISOString(),
      is_pep_watchlist_clear: screeningOutcome(request) !== "pep",
      exported_by: null,
      created_by: "Sandbox User",
    },
  };
}

/** PEP checks, by id; the state file holds [id, record] pairs. */
export const PEP: ProductSlice<number, PepRecord> = {
  name: "pep",
  saved: { form: "entries" },
  restorable: isObject,
};

export const pepHandlers = {
  createPepCheck: ({ sandbox, value, now, store }) => {
    const id = sandbox.nextId("pep");
    const record = pepCheck(id, value, now);
    store.put(PEP, id, record);
    return { status: 200, json: record.body };
  },
  getPepCheckPdf: ({ store, op, param, exportOnce }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(PEP, id);
    if (!record) return notFound(op, "PEP check");
    return exportOnce(PEP, id as number, record, () => {
      const b = record.body;
      const pdf = renderPdf("PEP and sanctions screening", [
        `Reference: ${b.reference}`,
        `Name: ${[b.firstname, b.middle_name, b.lastname].filter(Boolean).join(" ")}`,
        `Watchlists: ${b.is_pep_watchlist_clear ? "clear" : "found on a watchlist"}`,
      ]);
      return file(pdf, `pep-check-${id}.pdf`);
    });
  },
} satisfies Partial<ServiceHandlers>;
