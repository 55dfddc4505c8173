// Enhanced due diligence, EDD (POST /api/v4/outsource_cases and its status and uploads): its records,
// its case_completed event, its handlers, and its slice of the --state file.
import { randomUUID } from "node:crypto";
import type { Json } from "../../src/contract/json.js";
import { formParts, multipartBoundary } from "../../src/contract/multipart.js";
import { extensionFor } from "../../src/media-types.js";
import type { PayloadOf } from "../deliveries/types.js";
import { CONTROL_PREFIX } from "../http/paths.js";
import { isObject } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import { intId, notFound } from "./answers.js";
import type { ServiceHandlers } from "./context.js";
import { isoSeconds } from "./records.js";

// Request bodies reach here only after the contract's schema accepted them.

/** The longest asset file name kept (a common file-system limit); a longer one keeps its end, extension included. */
const MAX_FILE_NAME = 255;

/** Assets a case lists at most; past it the oldest is forgotten (the contract's upload has no error for "too many"). */
const MAX_ASSETS_PER_CASE = 100;

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

/** The case_completed body of an EDD case, as the service sends it. */
export function eddCompletedBody(record: Json): PayloadOf<"eddCaseCompleted", "case_completed"> {
  return {
    event: "case_completed",
    ...(typeof record.reference === "string" ? { reference: record.reference } : {}),
    external_id: null,
    phone_number: record.primary_contact?.formatted_contact_phone ?? null,
    transaction_id: record.transaction_id,
    verification: null,
    message: null,
  };
}

/** EDD cases, by id; the state file holds [id, record] pairs. */
export const EDD: ProductSlice<number, Json> = {
  name: "edd",
  saved: { form: "entries" },
  restorable: isObject,
};

/**
 * A file name as its uploader wrote it. Clients write its UTF-8 bytes in the part's header (which
 * the parser reads as latin1), with `"`, CR and LF as %22, %0D and %0A (the HTML form encoding).
 */
const uploadedName = (header: string): string =>
  Buffer.from(header, "latin1")
    .toString()
    .replace(/%(22|0D|0A)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A case answer with fresh metadata, as every EDD response carries one. */
function withMetadata(record: Json): Json {
  return { metadata: { api_version: "v4", request_id: randomUUID() }, ...record };
}

export const eddHandlers = {
  createEddCase: ({ sandbox, value, now, store }) => {
    const id = sandbox.nextId("edd");
    const record = eddCase(id, value, now);
    store.put(EDD, id, record);
    return { status: 200, json: withMetadata(record) };
  },
  getEddCase: ({ store, op, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(EDD, id);
    return record ? { status: 200, json: withMetadata(record) } : notFound(op, "EDD case");
  },
  updateEddCaseStatus: ({ sandbox, store, op, value, now, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(EDD, id);
    if (!record) return notFound(op, "EDD case");
    const before = record.process_status;
    record.process_status = value.process_status;
    record.updated_at = isoSeconds(now);
    if (value.process_status === "completed" && before !== "completed")
      sandbox.emit("eddCaseCompleted", "case_completed", record.transaction_id, eddCompletedBody(record));
    store.put(EDD, record.id as number, record);
    return { status: 200, json: withMetadata(record) };
  },
  uploadEddCaseFile: ({ sandbox, store, req, op, now, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(EDD, id);
    if (!record) return notFound(op, "EDD case");
    const parts = formParts({ kind: "bytes", bytes: req.body }, multipartBoundary(req.contentType)) ?? [];
    const part = parts.find((p) => p.name === "file");
    const uploaded = part?.fileName === undefined ? undefined : uploadedName(part.fileName);
    // A file sent without a name (its type named an accepted format) is named after that format.
    const extension = extensionFor(part?.contentType ?? "");
    const unnamed = extension === undefined ? "upload" : `upload.${extension}`;
    // The name is kept, its length is not the uploader's to choose: the record budget does not count it.
    const fileName = (uploaded || unnamed).replace(/[\\/]/g, "_").slice(-MAX_FILE_NAME);
    const assetId = sandbox.nextId("asset");
    if (part?.bytes) sandbox.assetFiles.put(assetId, part.bytes, part.contentType, fileName);
    record.assets.push({
      id: assetId,
      file_name: fileName,
      file_ext: fileName.includes(".") ? (fileName.split(".").pop() ?? "").toLowerCase() : "",
      download_url: `${sandbox.baseUrl}${CONTROL_PREFIX}/edd_cases/${id}/assets/${assetId}`,
      uploaded_by: "Sandbox User",
      updated_at: isoSeconds(now),
    });
    if (record.assets.length > MAX_ASSETS_PER_CASE)
      for (const gone of record.assets.splice(0, record.assets.length - MAX_ASSETS_PER_CASE))
        sandbox.assetFiles.drop(gone.id);
    record.updated_at = isoSeconds(now);
    // Its assets' metadata is kept too: the case is counted again as it now is.
    store.put(EDD, record.id as number, record);
    return { status: 200, json: withMetadata(record) };
  },
} satisfies Partial<ServiceHandlers>;
