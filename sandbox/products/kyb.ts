// Business verification, KYB (POST /api/v4/kyb_verifications and its company search): its records,
// its handlers, and its slice of the --state file.
import type { Json } from "../../src/contract/json.js";
import { isObject } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import { file, intId, notFound } from "./answers.js";
import type { ServiceHandlers } from "./context.js";
import { renderPdf } from "./files/pdf.js";
import { type Archivable, digitsOf, isoSeconds } from "./records.js";

// Request bodies reach here only after the contract's schema accepted them.

/** POST /api/v4/kyb_verifications/companies: the company the identifier names. */
export function kybCompanies(request: Json): Json {
  const search = request.kyb_search_company;
  const identifier = String(search.company_identifier);
  const byNumber = /^[0-9A-Z]{6,}$/.test(identifier) && /\d/.test(identifier);
  const number = byNumber ? identifier : digitsOf(identifier, 8);
  const name = byNumber ? `COMPANY ${identifier} LIMITED` : identifier.toUpperCase();
  return {
    companies: [
      {
        id: `${String(search.country_code).slice(0, 2).toLowerCase()}-${number}`,
        companyName: name,
        companyNumber: number,
        status: "active",
        type: "ltd",
        startDate: "2015-02-18",
        aliases: [],
      },
    ],
  };
}

export interface KybRecord extends Archivable {
  body: Json;
  company_code: string;
}

/** POST /api/v4/kyb_verifications: the verification of the chosen company. */
export function kybVerification(id: number, request: Json, now: number): KybRecord {
  const v = request.kyb_verification;
  return {
    archived: false,
    company_code: v.company_code,
    body: {
      id,
      created_at: isoSeconds(now),
      reference: v.reference,
      country_code: v.country_code,
      company_identifier: v.company_identifier,
    },
  };
}

/** KYB verifications, by id; the state file holds [id, record] pairs. */
export const KYB: ProductSlice<number, KybRecord> = {
  name: "kyb",
  saved: { form: "entries" },
  restorable: isObject,
};

export const kybHandlers = {
  searchKybCompanies: ({ value }) => ({ status: 200, json: kybCompanies(value) }),
  createKybVerification: ({ sandbox, value, now, store }) => {
    const id = sandbox.nextId("kyb");
    const record = kybVerification(id, value, now);
    store.put(KYB, id, record);
    return { status: 200, json: record.body };
  },
  getKybVerificationPdf: ({ store, op, param, exportOnce }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(KYB, id);
    if (!record) return notFound(op, "KYB verification");
    return exportOnce(KYB, id as number, record, () => {
      const b = record.body;
      const pdf = renderPdf("Business verification (KYB)", [
        `Reference: ${b.reference}`,
        `Company: ${b.company_identifier} (${b.country_code})`,
        `Company code: ${record.company_code}`,
      ]);
      return file(pdf, `kyb-verification-${id}.pdf`);
    });
  },
} satisfies Partial<ServiceHandlers>;
