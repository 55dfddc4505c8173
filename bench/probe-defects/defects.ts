// The sixteen injected defects of the probe's bench (issue 46): each a bug a real service could ship,
// reached only by some valid or broken inputs, in front of the sandbox. Nothing in conformance/,
// sandbox/ or src/ imports this file: the probe does not know them.
// shape: data table
import type { Json } from "../../src/contract/json.js";
import type { Defect, DefectMemory } from "./defect.js";
import { changedJson, errorAnswer, type ForwardAnswer, parseJson, type SeenRequest } from "./exchange.js";

const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");
/** A letter outside ASCII (é, ß, ā, ø…). */
const NON_ASCII_LETTER = /(?!\p{ASCII})\p{L}/u;
const answered = (answer: ForwardAnswer, status: number) => answer.status === status;
const int32Max = 2_147_483_647;
/** The JSON of an answer (the sandbox's own bytes; a non-JSON answer is undefined). */
const bodyOf = (answer: ForwardAnswer): Json => parseJson(answer.body);
/** An RFC 3339 date-time, as ajv-formats reads `format: date-time` (leniently: any valid offset). */
const isDateTime = (v: string) =>
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) &&
  !Number.isNaN(Date.parse(v));
const lastId = (earlier: Json[]): string =>
  String(earlier.at(-1)?.id ?? earlier.at(-1)?.metadata?.transaction_id);
const firstId = (earlier: Json[]): string => String(earlier[0]?.id ?? earlier[0]?.metadata?.transaction_id);

/** A download remembered when first answered 200, sent again where the sandbox refuses the second. */
function replayDownload(
  request: SeenRequest,
  answer: ForwardAnswer,
  memory: DefectMemory,
  refused: (answer: ForwardAnswer) => boolean,
): ForwardAnswer | undefined {
  const key = `${request.operationId} ${request.params[0]}`;
  if (answered(answer, 200)) memory.keep(key, answer);
  else if (refused(answer)) return memory.get(key);
  return undefined;
}

/** The defects, by name. */
export const DEFECTS: readonly Defect[] = [
  {
    name: "manual-first-name-at-max-length",
    kind: "boundary",
    description: "A first name of exactly maxLength (64) characters is refused 422, as if the limit were 63.",
    operations: ["createManualVerification"],
    scope: ["createManualVerification"],
    trigger: "individual.first_name of exactly 64 characters (code points)",
    examplesTrigger: false,
    sample: [
      {
        operationId: "createManualVerification",
        body: (e) => ({ ...e, individual: { ...e.individual, first_name: "A".repeat(64) } }),
      },
    ],
    after: (request, answer) =>
      answered(answer, 200) && [...text(request.json?.individual?.first_name)].length === 64
        ? errorAnswer(request, 422, "VALIDATION", "Validation failed: individual.first_name.", {
            individual: { first_name: ["is too long (maximum is 63 characters)"] },
          })
        : undefined,
  },
  {
    name: "edd-case-id-at-minimum",
    kind: "boundary",
    description:
      "Reading the EDD case of id 1 (the schema's minimum) crashes the lookup: 500 instead of 404.",
    operations: ["getEddCase"],
    scope: ["getEddCase"],
    trigger: "path id equal to 1",
    examplesTrigger: false,
    sample: [{ operationId: "getEddCase", param: "1" }],
    after: (request, answer) =>
      answered(answer, 404) && Number(request.params[0]) === 1
        ? errorAnswer(request, 500, "SERVER_ERROR", "Internal server error.")
        : undefined,
  },
  {
    name: "manual-non-ascii-name-500",
    kind: "non-ascii",
    description: "A manual verification whose name holds a letter outside ASCII (é, ß, ā) is answered 500.",
    operations: ["createManualVerification"],
    scope: ["createManualVerification"],
    trigger: "individual.first_name, middle_name or last_name with a non-ASCII letter",
    examplesTrigger: false,
    sample: [
      {
        operationId: "createManualVerification",
        body: (e) => ({ ...e, individual: { ...e.individual, last_name: "Müller" } }),
      },
    ],
    after: (request, answer) => {
      const who = request.json?.individual;
      const names = [who?.first_name, who?.middle_name, who?.last_name].map(text);
      return answered(answer, 200) && names.some((n) => NON_ASCII_LETTER.test(n))
        ? errorAnswer(request, 500, "SYSTEM", "An unexpected error occurred.")
        : undefined;
    },
  },
  {
    name: "pep-non-ascii-name-refused",
    kind: "non-ascii",
    description:
      "A PEP check of a person whose name holds a letter outside ASCII is refused 422 NOT_CREATED.",
    operations: ["createPepCheck"],
    scope: ["createPepCheck"],
    trigger: "firstname, middle_name or lastname with a non-ASCII letter",
    examplesTrigger: false,
    sample: [{ operationId: "createPepCheck", body: (e) => ({ ...e, lastname: "Tāne" }) }],
    after: (request, answer) => {
      const names = [request.json?.firstname, request.json?.middle_name, request.json?.lastname].map(text);
      return answered(answer, 200) && names.some((n) => NON_ASCII_LETTER.test(n))
        ? errorAnswer(request, 422, "NOT_CREATED", "The name may hold Latin letters only.")
        : undefined;
    },
  },
  {
    name: "manual-aus-state-not-enforced",
    kind: "conditional rule",
    description:
      "The AUS rule (address.state required) is not enforced: an AUS address without state is answered 200.",
    operations: ["createManualVerification"],
    scope: ["createManualVerification"],
    trigger: "address.country AUS without address.state",
    examplesTrigger: false,
    sample: [
      {
        operationId: "createManualVerification",
        body: (e) => ({
          metadata: e.metadata,
          individual: e.individual,
          identity_document: {
            type: "passport",
            country_of_issue: "AUS",
            primary_number: "PA4821937",
            date_of_expiry: "2031-06-30",
          },
          address: { line_1: "15 Church Street", suburb: "Parramatta", postcode: "2150", country: "AUS" },
        }),
      },
    ],
    // The service fills a default state and verifies against it.
    before: (request) => {
      const address = request.json?.address;
      if (request.operationId !== "createManualVerification" || !isObject(address)) return undefined;
      if (address.country !== "AUS" || address.state !== undefined) return undefined;
      return Buffer.from(JSON.stringify({ ...request.json, address: { ...address, state: "NSW" } }));
    },
  },
  {
    name: "manual-licence-number-wrong-country",
    kind: "conditional rule",
    description:
      "The NZL/AUS driver-licence rule (secondary_number required) is enforced for licences of every country.",
    operations: ["createManualVerification"],
    scope: ["createManualVerification"],
    trigger: "identity_document a driver_licence issued outside NZL and AUS, without secondary_number",
    examplesTrigger: false,
    sample: [
      {
        operationId: "createManualVerification",
        body: (e) => ({
          ...e,
          identity_document: {
            type: "driver_licence",
            country_of_issue: "GBR",
            primary_number: "WHITA807195OJ9AB",
          },
        }),
      },
    ],
    after: (request, answer) => {
      const doc = request.json?.identity_document;
      const fires =
        answered(answer, 200) &&
        isObject(doc) &&
        doc.type === "driver_licence" &&
        !["NZL", "AUS"].includes(text(doc.country_of_issue)) &&
        doc.secondary_number === undefined;
      return fires
        ? errorAnswer(request, 422, "VALIDATION", "Validation failed: identity_document.secondary_number.", {
            identity_document: { secondary_number: ["can't be blank"] },
          })
        : undefined;
    },
  },
  {
    name: "biometric-only-500",
    kind: "optional member",
    description:
      "A biometric verification sent with the optional biometric_only true (no data searches) is answered 500.",
    operations: ["createBiometricVerification"],
    scope: ["createBiometricVerification"],
    trigger: "biometric_only: true present",
    examplesTrigger: false,
    sample: [{ operationId: "createBiometricVerification", body: (e) => ({ ...e, biometric_only: true }) }],
    after: (request, answer) =>
      answered(answer, 200) && request.json?.biometric_only === true
        ? errorAnswer(request, 500, "SYSTEM", "An unexpected error occurred.")
        : undefined,
  },
  {
    name: "fraud-address-absent-shape",
    kind: "optional member",
    description:
      "A fraud analytic sent without the optional address_payload answers address as [] (an array, not string or null).",
    operations: ["createFraudAnalytic"],
    scope: ["createFraudAnalytic"],
    trigger: "address_payload absent",
    examplesTrigger: false,
    sample: [
      {
        operationId: "createFraudAnalytic",
        body: (e) => Object.fromEntries(Object.entries(e as object).filter(([k]) => k !== "address_payload")),
      },
    ],
    after: (request, answer) =>
      answered(answer, 200) && isObject(request.json) && request.json.address_payload === undefined
        ? changedJson(answer, (v) => ({ ...v, address: [] }))
        : undefined,
  },
  {
    name: "pep-leap-day-refused",
    kind: "leap day",
    description: "A PEP check of a person born on 29 February (of a leap year) is refused 422 NOT_CREATED.",
    operations: ["createPepCheck"],
    scope: ["createPepCheck"],
    trigger: "date_of_birth 29/02/YYYY (a leap year: the schema accepts it)",
    examplesTrigger: false,
    sample: [{ operationId: "createPepCheck", body: (e) => ({ ...e, date_of_birth: "29/02/1988" }) }],
    after: (request, answer) =>
      answered(answer, 200) && /^29\/02\//.test(text(request.json?.date_of_birth))
        ? errorAnswer(request, 422, "NOT_CREATED", "date_of_birth is not a valid date.")
        : undefined,
  },
  {
    name: "pep-pdf-large-id-500",
    kind: "integer id",
    description:
      "A PEP check PDF asked for by an id above 2^31−1 (an int32 column) is answered 500 instead of 404.",
    operations: ["getPepCheckPdf"],
    scope: ["getPepCheckPdf"],
    trigger: "path id greater than 2147483647",
    examplesTrigger: false,
    sample: [{ operationId: "getPepCheckPdf", param: "4294967296" }],
    after: (request, answer) =>
      answered(answer, 404) && Number(request.params[0]) > int32Max
        ? errorAnswer(request, 500, "SERVER_ERROR", "Internal server error.")
        : undefined,
  },
  {
    name: "edd-read-back-label",
    kind: "chain",
    description:
      "An EDD case created with entity_type individual_joint is read back with entity.entity_type_label null (not a string).",
    operations: ["getEddCase"],
    scope: ["createEddCase", "uploadEddCaseFile", "getEddCase", "updateEddCaseStatus"],
    trigger: "getEddCase of a case created with entity_type individual_joint",
    examplesTrigger: false,
    sample: [
      { operationId: "createEddCase", body: (e) => ({ ...e, entity_type: "individual_joint" }) },
      { operationId: "getEddCase", param: lastId },
    ],
    after: (request, answer) =>
      answered(answer, 200) && bodyOf(answer)?.entity?.entity_type === "individual_joint"
        ? changedJson(answer, (v) => ({ ...v, entity: { ...v.entity, entity_type_label: null } }))
        : undefined,
  },
  {
    name: "pep-pdf-archive-twice",
    kind: "state",
    description:
      "A second download of a PEP check's PDF (archived by the first) is answered 200 again, not 400 ALREADY_ARCHIVED.",
    operations: ["getPepCheckPdf"],
    scope: ["createPepCheck", "getPepCheckPdf"],
    trigger: "getPepCheckPdf of a check whose PDF was downloaded",
    examplesTrigger: false,
    sample: [
      { operationId: "createPepCheck" },
      { operationId: "getPepCheckPdf", param: firstId },
      { operationId: "getPepCheckPdf", param: firstId },
    ],
    after: (request, answer, memory) =>
      request.operationId === "getPepCheckPdf"
        ? replayDownload(
            request,
            answer,
            memory,
            (a) => answered(a, 400) && bodyOf(a)?.error_code === "ALREADY_ARCHIVED",
          )
        : undefined,
  },
  {
    name: "manual-export-archived",
    kind: "state",
    description:
      "Exporting a manual verification already exported (archived, data erased) is answered 200 with the report again, not 404.",
    operations: ["exportAndArchiveManualVerification"],
    scope: ["createManualVerification", "exportAndArchiveManualVerification", "getManualPepWatchlist"],
    trigger: "exportAndArchiveManualVerification of a verification exported before",
    examplesTrigger: false,
    sample: [
      { operationId: "createManualVerification" },
      { operationId: "exportAndArchiveManualVerification", param: firstId },
      { operationId: "exportAndArchiveManualVerification", param: firstId },
    ],
    after: (request, answer, memory) =>
      request.operationId === "exportAndArchiveManualVerification"
        ? replayDownload(request, answer, memory, (a) => answered(a, 404))
        : undefined,
  },
  {
    name: "kyb-search-other-register-null",
    kind: "response shape",
    description:
      "A KYB company search in a register other than NZL, AUS or GBR answers companies: null (not an array).",
    operations: ["searchKybCompanies"],
    scope: ["searchKybCompanies"],
    trigger: "kyb_search_company.country_code other than NZL, AUS, GBR",
    examplesTrigger: false,
    sample: [
      {
        operationId: "searchKybCompanies",
        body: (e) => ({ kyb_search_company: { ...e.kyb_search_company, country_code: "USA" } }),
      },
    ],
    after: (request, answer) => {
      const country = text(request.json?.kyb_search_company?.country_code);
      return answered(answer, 200) && !["NZL", "AUS", "GBR"].includes(country)
        ? changedJson(answer, (v) => ({ ...v, companies: null }))
        : undefined;
    },
  },
  {
    name: "property-search-no-line-404",
    kind: "response shape",
    description:
      "A property search whose address has no line_1 is answered 404 NOT_FOUND, a status searchProperty does not document.",
    operations: ["searchProperty"],
    scope: ["searchProperty"],
    trigger: "address (or search_property.address) without line_1",
    examplesTrigger: false,
    sample: [
      {
        operationId: "searchProperty",
        body: (e) => ({ ...e, address: { building_number: "14", postal_code: "SE6 2PT" } }),
      },
    ],
    after: (request, answer) => {
      const address = (request.json?.search_property ?? request.json)?.address;
      return answered(answer, 200) && isObject(address) && address.line_1 === undefined
        ? errorAnswer(request, 404, "NOT_FOUND", "No property matches the address.")
        : undefined;
    },
  },
  {
    name: "edd-deadline-error-shape",
    kind: "error shape",
    description:
      "An EDD case whose deadline is a string but not a date-time is refused 422 in the v2 error shape (error_type, validation_errors), not v4's.",
    operations: ["createEddCase"],
    scope: ["createEddCase"],
    trigger: "deadline a string that is not an RFC 3339 date-time",
    examplesTrigger: false,
    sample: [{ operationId: "createEddCase", body: (e) => ({ ...e, deadline: "6 December 2026" }) }],
    after: (request, answer) => {
      const deadline = request.json?.deadline;
      return answered(answer, 422) && typeof deadline === "string" && !isDateTime(deadline)
        ? errorAnswer(
            request,
            422,
            "VALIDATION",
            "Validation failed: deadline.",
            { deadline: ["is invalid"] },
            "A",
          )
        : undefined;
    },
  },
];

/** The defect of a name, or undefined. */
export const defectNamed = (name: string): Defect | undefined => DEFECTS.find((d) => d.name === name);
