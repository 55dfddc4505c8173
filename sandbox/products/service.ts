// The service's operations on the sandbox's state: each create makes a record from the request, each
// read returns it, each download is a real PDF (or zip) of it, and unknown ids get the operation's 404.
import { randomUUID } from "node:crypto";
import { formParts, multipartBoundary } from "../../src/contract/multipart.js";
import type { Operation } from "../../src/server/operations.js";
import { rejection } from "../../src/server/error-body.js";
import { TransitionError } from "./biometric/lifecycle.js";
import { biometricJourney, smsFails, zipTitle } from "./magic.js";
import { renderPdf } from "./files/pdf.js";
import {
  eddCase,
  eraseArchived,
  fraudAnalytic,
  isoSeconds,
  kybCompanies,
  kybVerification,
  manualVerification,
  pepCheck,
  propertySearch,
  propertyVerification,
} from "./records.js";
import type { Sandbox } from "../sandbox.js";
import { renderZip } from "./files/zip.js";
import type { Answer } from "../../src/server/answer.js";
import type { operations } from "../../generated/types.js";
import type { Json } from "../../src/contract/json.js";

// Bodies reach here only after the contract's schema accepted them.

/** What the HTTP layer sends: JSON, or bytes with their type and file name (src/server's answer). */
export type { Answer } from "../../src/server/answer.js";

export interface ServiceRequest {
  op: Operation;
  /** Path parameters, decoded, in template order. */
  params: string[];
  /** The accepted JSON body, if any. */
  value: Json;
  /** The raw body (for uploads). */
  body: Buffer;
  contentType: string | undefined;
  accept: string | undefined;
  /** A HEAD request: answered as GET, without the download's effects (archiving). */
  head: boolean;
}

const error = (op: Operation, status: number, code: string, message: string): Answer => {
  const r = rejection(op.shape, status, code, message, {});
  return { status: r.status, json: r.body };
};

const notFound = (op: Operation, what: string): Answer =>
  error(op, 404, "NOT_FOUND", `No ${what} has this id.`);

const file = (bytes: Buffer, name: string, type = "application/pdf"): Answer => ({
  status: 200,
  bytes,
  headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"` },
});

/**
 * A file name as its uploader wrote it. Clients write its UTF-8 bytes in the part's header (which
 * the parser reads as latin1), with `"`, CR and LF as %22, %0D and %0A (the HTML form encoding).
 */
const uploadedName = (header: string): string =>
  Buffer.from(header, "latin1")
    .toString()
    .replace(/%(22|0D|0A)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A record's integer id from the path, or undefined (the mock's checks already refused non-numbers). */
const intId = (raw: string | undefined): number | undefined => {
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
};

/** The longest asset file name kept (a common file-system limit); a longer one keeps its end, extension included. */
const MAX_FILE_NAME = 255;

/** The extension given to a file uploaded without a name, by its part's media type. */
const UNNAMED_EXTENSIONS = new Map([
  ["image/png", ".png"],
  ["image/jpeg", ".jpg"],
  ["text/plain", ".txt"],
  ["application/pdf", ".pdf"],
]);

/** Assets a case lists at most; past it the oldest is forgotten (the contract's upload has no error for "too many"). */
const MAX_ASSETS_PER_CASE = 100;

/** The contract's operation ids, less its webhooks' (`…Event`: the service sends those, it does not answer them). */
type ServiceOperationId = Exclude<keyof operations, `${string}Event`>;

/** What a handler of one operation gets: the request, the sandbox, and the helpers every download shares. */
interface ServiceContext {
  sandbox: Sandbox;
  req: ServiceRequest;
  op: Operation;
  /** The accepted JSON body, if any. */
  value: Json;
  /** The virtual time, in epoch milliseconds. */
  now: number;
  /** The first path parameter (a transaction id or a record id), if any. */
  param: string | undefined;
  /** A download archives its record on the service; a HEAD request only asks what it would get. */
  archive: (record: { archived: boolean }) => void;
  /** A report exports once: the export archives it, and another gets the service's 400. */
  exportOnce: (record: { archived: boolean }, render: () => Answer) => Answer;
  /** Keep a new record (its request's bytes count against the sandbox's budget) and say the state changed. */
  store: <K, V>(records: Map<K, V>, key: K, record: V) => void;
}

/**
 * The service's operations by operation id. Typed by the contract's own list, so an operation added
 * to the contract fails the build until it has its entry here: adding one is one entry in one place.
 */
const handlers: { readonly [Id in ServiceOperationId]: (c: ServiceContext) => Answer } = {
  createManualVerification: ({ sandbox, value, now, store }) => {
    const record = manualVerification(value, now);
    store(sandbox.manual, record.transaction_id, record);
    return { status: 200, json: record.response };
  },
  exportAndArchiveManualVerification: ({ sandbox, op, param, archive }) => {
    const record = sandbox.manual.get(param ?? "");
    // Archived means erased: the export is gone with it.
    if (!record || record.archived) return notFound(op, "manual verification");
    const pdf = renderPdf("Manual identity verification", [
      `Reference: ${record.reference}`,
      `Transaction: ${record.transaction_id}`,
      `Name: ${record.names.join(" ")}`,
      `Overall: ${record.response.results.overall ? "verified" : "not verified"}`,
    ]);
    // After the report is made: archiving erases the name it shows.
    archive(record);
    return file(pdf, `manual-verification-${record.transaction_id}.pdf`);
  },
  getManualPepWatchlist: ({ sandbox, op, param }) => {
    const record = sandbox.manual.get(param ?? "");
    if (!record || record.archived || record.response.results.pep_clear)
      return notFound(op, "PEP watchlist report");
    const pdf = renderPdf("PEP watchlist results", [
      `Reference: ${record.reference}`,
      `Name: ${record.names.join(" ")}`,
      "Found on a PEP or sanctions watchlist (sandbox).",
    ]);
    return file(pdf, `pep-watchlist-${record.transaction_id}.pdf`);
  },
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
    sandbox.keep(sandbox.biometric.records, record.transaction_id, record);
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
      sandbox.keep(sandbox.biometric.records, replacement.transaction_id, replacement);
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
  searchProperty: ({ value }) => ({ status: 200, json: propertySearch(value) }),
  createPropertyVerification: ({ sandbox, value, store }) => {
    const id = sandbox.nextId("property");
    const record = propertyVerification(
      id,
      value,
      zipTitle(value.res_attributes?.title_number) ? "zip" : "pdf",
    );
    store(sandbox.property, id, record);
    return { status: 200, json: record.body };
  },
  getOnlineOwnershipPdf: ({ sandbox, op, param, exportOnce }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.property.get(id);
    if (!record || record.kind !== "oov") return notFound(op, "Online Ownership verification");
    return exportOnce(record, () => {
      const v = record.body.property_verifications[0];
      const pdf = renderPdf("Online Ownership verification", [
        `Reference: ${record.body.reference}`,
        `Title number: ${v.title_number}`,
        `Owner: ${[v.firstname, v.middle_name, v.lastname].filter(Boolean).join(" ")}`,
        `Result: ${v.verification_result}`,
      ]);
      return file(pdf, `online-ownership-${id}.pdf`);
    });
  },
  getTitleSearchDocument: ({ sandbox, op, now, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.property.get(id);
    if (!record || record.kind !== "res") return notFound(op, "title search");
    const v = record.body.property_verifications[0];
    const document = renderPdf("Official title search: register", [
      `Reference: ${record.body.reference}`,
      `Title number: ${v.title_number}`,
      `Address: ${record.body.address}`,
    ]);
    if (v.file_format !== "zip") return file(document, `title-search-${id}.pdf`);
    const plan = renderPdf("Official title search: plan", [`Title number: ${v.title_number}`]);
    const zip = renderZip(
      [
        { name: "register.pdf", data: document },
        { name: "plan.pdf", data: plan },
      ],
      new Date(now),
    );
    return file(zip, `title-search-${id}.zip`, "application/zip");
  },
  createPepCheck: ({ sandbox, value, now, store }) => {
    const id = sandbox.nextId("pep");
    const record = pepCheck(id, value, now);
    store(sandbox.pep, id, record);
    return { status: 200, json: record.body };
  },
  getPepCheckPdf: ({ sandbox, op, param, exportOnce }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.pep.get(id);
    if (!record) return notFound(op, "PEP check");
    return exportOnce(record, () => {
      const b = record.body;
      const pdf = renderPdf("PEP and sanctions screening", [
        `Reference: ${b.reference}`,
        `Name: ${[b.firstname, b.middle_name, b.lastname].filter(Boolean).join(" ")}`,
        `Watchlists: ${b.is_pep_watchlist_clear ? "clear" : "found on a watchlist"}`,
      ]);
      return file(pdf, `pep-check-${id}.pdf`);
    });
  },
  createFraudAnalytic: ({ sandbox, value, store }) => {
    const id = sandbox.nextId("fraud");
    const record = fraudAnalytic(id, value);
    store(sandbox.fraud, id, record);
    return { status: 200, json: record };
  },
  searchKybCompanies: ({ value }) => ({ status: 200, json: kybCompanies(value) }),
  createKybVerification: ({ sandbox, value, now, store }) => {
    const id = sandbox.nextId("kyb");
    const record = kybVerification(id, value, now);
    store(sandbox.kyb, id, record);
    return { status: 200, json: record.body };
  },
  getKybVerificationPdf: ({ sandbox, op, param, exportOnce }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.kyb.get(id);
    if (!record) return notFound(op, "KYB verification");
    return exportOnce(record, () => {
      const b = record.body;
      const pdf = renderPdf("Business verification (KYB)", [
        `Reference: ${b.reference}`,
        `Company: ${b.company_identifier} (${b.country_code})`,
        `Company code: ${record.company_code}`,
      ]);
      return file(pdf, `kyb-verification-${id}.pdf`);
    });
  },
  createEddCase: ({ sandbox, value, now, store }) => {
    const id = sandbox.nextId("edd");
    const record = eddCase(id, value, now);
    store(sandbox.edd, id, record);
    return { status: 200, json: withMetadata(record) };
  },
  getEddCase: ({ sandbox, op, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.edd.get(id);
    return record ? { status: 200, json: withMetadata(record) } : notFound(op, "EDD case");
  },
  updateEddCaseStatus: ({ sandbox, op, value, now, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.edd.get(id);
    if (!record) return notFound(op, "EDD case");
    const before = record.process_status;
    record.process_status = value.process_status;
    record.updated_at = isoSeconds(now);
    if (value.process_status === "completed" && before !== "completed") sandbox.emitEddCompleted(record);
    sandbox.changed();
    return { status: 200, json: withMetadata(record) };
  },
  uploadEddCaseFile: ({ sandbox, req, op, now, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : sandbox.edd.get(id);
    if (!record) return notFound(op, "EDD case");
    const parts = formParts({ kind: "bytes", bytes: req.body }, multipartBoundary(req.contentType)) ?? [];
    const part = parts.find((p) => p.name === "file");
    const uploaded = part?.fileName === undefined ? undefined : uploadedName(part.fileName);
    // A file sent without a name (its type named an accepted format) is named after that format.
    const unnamed = `upload${UNNAMED_EXTENSIONS.get(part?.contentType ?? "") ?? ""}`;
    // The name is kept, its length is not the uploader's to choose: the record budget does not count it.
    const fileName = (uploaded || unnamed).replace(/[\\/]/g, "_").slice(-MAX_FILE_NAME);
    const assetId = sandbox.nextId("asset");
    if (part?.bytes) sandbox.assetFiles.put(assetId, part.bytes, part.contentType, fileName);
    record.assets.push({
      id: assetId,
      file_name: fileName,
      file_ext: fileName.includes(".") ? (fileName.split(".").pop() ?? "").toLowerCase() : "",
      download_url: `${sandbox.baseUrl}/_sandbox/edd_cases/${id}/assets/${assetId}`,
      uploaded_by: "Sandbox User",
      updated_at: isoSeconds(now),
    });
    if (record.assets.length > MAX_ASSETS_PER_CASE)
      for (const gone of record.assets.splice(0, record.assets.length - MAX_ASSETS_PER_CASE))
        sandbox.assetFiles.drop(gone.id);
    record.updated_at = isoSeconds(now);
    // Its assets' metadata is kept too: the case is counted again as it now is.
    sandbox.keep(sandbox.edd, record.id as number, record);
    sandbox.changed();
    return { status: 200, json: withMetadata(record) };
  },
};

/** Answer one accepted request of the service's contract. */
export function answerService(sandbox: Sandbox, req: ServiceRequest): Answer {
  const { op } = req;
  const handler = Object.hasOwn(handlers, op.operationId)
    ? handlers[op.operationId as ServiceOperationId]
    : undefined;
  if (!handler)
    return error(
      op,
      500,
      op.shape === "A" ? "SYSTEM" : "SANDBOX_ERROR",
      "The sandbox has no answer for this operation.",
    );
  const archive = (record: { archived: boolean }) => {
    if (req.head) return;
    record.archived = true;
    eraseArchived(record);
    sandbox.changed();
  };
  return handler({
    sandbox,
    req,
    op,
    value: req.value,
    now: sandbox.clock.now(),
    param: req.params[0],
    archive,
    exportOnce: (record, render) => {
      if (record.archived) return error(op, 400, "ALREADY_ARCHIVED", "The report was exported and archived.");
      // The report first: archiving erases the personal data it shows.
      const answer = render();
      archive(record);
      return answer;
    },
    store: (records, key, record) => {
      sandbox.keep(records, key, record);
      sandbox.changed();
    },
  });
}

/** A case answer with fresh metadata, as every EDD response carries one. */
function withMetadata(record: Json): Json {
  return { metadata: { api_version: "v4", request_id: randomUUID() }, ...record };
}
