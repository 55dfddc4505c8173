// Records of the products without a lifecycle table (manual verification, PEP, fraud analytics,
// property, KYB, EDD), built from the request's own data; what the service returns for each.
import { createHash, randomUUID } from "node:crypto";
import bundled from "../../generated/openapi.json" with { type: "json" };
import { screeningOutcome } from "./magic.js";
import type { Json } from "../../src/contract/json.js";

// Request bodies reach here only after the contract's schema accepted them.

const examples = (bundled as Json).components.examples as Record<string, { value: Json }>;
const example = (name: string): Json => structuredClone(examples[name]?.value);

/** Seconds precision, as the service's RFC 3339 timestamps. */
export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A stable number of `digits` digits from a text: the same address always finds the same titles. */
function digitsOf(text: string, digits: number): string {
  const n = createHash("sha256").update(text).digest().readUInt32BE(0);
  return String(n % 10 ** digits).padStart(digits, "0");
}

/** A record downloadable as a PDF once, then archived on the service. */
export interface Archivable {
  archived: boolean;
}

/** Members of a record's body that hold the person, or a property's owner and address. */
const PERSONAL = [
  "firstname",
  "middle_name",
  "lastname",
  "date_of_birth",
  "address",
  "property_verifications",
];

/**
 * Erase the personal data of a record its PDF download archived ("archived; data erased", as the
 * document says of verifications): what is kept answers only that it was archived, in memory and
 * in the --state file alike. A company (KYB) is not a person; its record is kept as it is.
 */
export function eraseArchived(record: Archivable): void {
  const r = record as Archivable & { names?: unknown; body?: unknown };
  if (Array.isArray(r.names)) r.names = [];
  if (typeof r.body === "object" && r.body !== null)
    for (const key of PERSONAL) delete (r.body as Record<string, unknown>)[key];
}

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

/** POST /api/v4/fraud_analytics: the indicators of the contract's example about the person as sent. */
export function fraudAnalytic(id: number, request: Json): Json {
  const template = example("CreateFraudAnalyticResponse");
  const a = request.address_payload ?? {};
  const address = [a.address_line_1, a.address_line_2, a.city, a.state, a.postcode]
    .filter(Boolean)
    .join(", ");
  return {
    id,
    fullname: [request.firstname, request.lastname].filter(Boolean).join(" ") || null,
    ip_address: request.ip_address ?? null,
    contact_phone: request.contact_phone,
    email: request.email,
    address: address || null,
    errors: null,
    results: template.results,
  };
}

const PROPERTY_FIELDS = [
  "building_name",
  "building_number",
  "line_1",
  "line_2",
  "locality",
  "province_name",
  "postal_code",
];

/** A property address object as one line. */
export function addressLine(address: Json): string {
  return PROPERTY_FIELDS.map((f) => address?.[f])
    .filter((v) => typeof v === "string" && v !== "")
    .join(", ");
}

/** POST /api/v4/search_property: one or two titles at the address, the same every time. */
export function propertySearch(request: Json): Json {
  const body = request.search_property ?? request;
  const line = addressLine(body.address);
  const n = digitsOf(line, 6);
  return {
    properties: [
      { title_number: `SGL${n}`, address: line },
      { title_number: `TGL${digitsOf(`${line}/flat`, 6)}`, address: `Ground Floor Flat, ${line}` },
    ],
  };
}

export interface PropertyRecord extends Archivable {
  kind: "oov" | "res";
  body: Json;
}

/** POST /api/v4/properties: an Online Ownership verification or an official title search. */
export function propertyVerification(id: number, request: Json, fileFormat: "pdf" | "zip"): PropertyRecord {
  const line = addressLine(request.address);
  const base = { id, reference: request.reference, created_by: "Sandbox User", status: "active" };
  if (request.res_attributes) {
    return {
      kind: "res",
      archived: false,
      body: {
        ...base,
        address: line,
        property_verifications: [
          {
            title_number: request.res_attributes.title_number,
            file_format: fileFormat,
            pdf: `/properties/${id}/res`,
          },
        ],
      },
    };
  }
  const o = request.oov_attributes;
  return {
    kind: "oov",
    archived: false,
    body: {
      ...base,
      address: request.address,
      property_verifications: [
        {
          title_number: o.title_number ?? `SGL${digitsOf(line, 6)}`,
          firstname: o.firstname,
          ...(o.middle_name === undefined ? {} : { middle_name: o.middle_name }),
          lastname: o.lastname,
          type: "LandReg::OOV",
          verification_result: "SINGLE_MATCH",
          address: line,
          tenure: "freehold",
          match_details: {
            firstname: "MATCH",
            ...(o.middle_name === undefined ? {} : { middle_name: "MATCH" }),
            surname: "MATCH",
            match_information: [
              { name: "HistoricalMatch", value: false },
              { name: "Ownership", value: "Sole proprietor" },
            ],
            string_match: true,
          },
          pdf: `/pdf/properties/${id}/oov`,
        },
      ],
    },
  };
}

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

const ENTITY_LABELS = new Map([
  ["individual_joint", "Individual / Joint"],
  ["trust", "Trust"],
  ["company", "Company"],
  ["estate", "Estate"],
  ["partnership", "Partnership"],
  ["registered_charity", "Registered Charity"],
  ["incorporated_society", "Incorporated Society"],
  ["other", "Other"],
]);

/** A contact phone as `+digits`, or null when it has no digits. */
export const plusDigits = (phone: unknown): string | null => {
  const digits = typeof phone === "string" ? phone.replace(/\D/g, "") : "";
  return digits ? `+${digits}` : null;
};

/** POST /api/v4/outsource_cases: a case in created, from the request's fields. */
export function eddCase(id: number, request: Json, now: number): Json {
  const at = isoSeconds(now);
  const or = (v: unknown) => (v === undefined ? null : v);
  return {
    type: "outsource_case",
    id,
    status: "active",
    process_status: "created",
    reference: or(request.reference),
    comment: or(request.comment),
    transaction_id: randomUUID(),
    created_by: "Sandbox User",
    created_at: at,
    updated_at: at,
    deadline: or(request.deadline),
    completed_note: null,
    on_hold: false,
    assignee_fullname: null,
    case_number: `EDD-${String(id).padStart(6, "0")}`,
    entity: {
      legal_name: or(request.legal_name),
      tax_number: or(request.tax_number),
      entity_type: request.entity_type,
      entity_type_label: ENTITY_LABELS.get(request.entity_type) ?? "Other",
    },
    primary_contact: {
      firstname: or(request.firstname),
      lastname: or(request.lastname),
      email: request.email,
      contact_phone: or(request.contact_phone),
      formatted_contact_phone: plusDigits(request.contact_phone),
    },
    property: {
      address_line_1: or(request.address_line_1),
      address_line_2: or(request.address_line_2),
      suburb: or(request.suburb),
      state: or(request.state),
      postcode: or(request.postcode),
      country_code: or(request.country_code),
      details: or(request.property_details),
    },
    status_updates: [],
    checklist_items: [],
    assets: [],
  };
}
