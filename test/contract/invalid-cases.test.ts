// The invalid requests the interface document names are rejected by the contract's schemas,
// while the valid request each starts from is accepted.
import { describe, expect, it } from "vitest";
import {
  type Json,
  jsonRequestExamples,
  jsonRequestSchema,
  loadOpenApi,
  operations,
  validatorsFor,
} from "../support/contract.js";

const doc = loadOpenApi();
const validator = validatorsFor(doc);

/** The JSON request examples of an operation, with the pointer of the schema they belong to. */
function requestExamples(operationId: string): { schemaPointer: string; values: Json[] } {
  const found = operations(doc).find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  const values = jsonRequestExamples(doc, found.op);
  if (!values) throw new Error(`${operationId} takes no JSON body`);
  return { schemaPointer: jsonRequestSchema(found.pointer), values };
}

function pick(operationId: string, predicate: (v: Json) => boolean = () => true) {
  const { schemaPointer, values } = requestExamples(operationId);
  const value = values.find(predicate);
  if (!value) throw new Error(`no request example of ${operationId} fits the case`);
  return { schemaPointer, value };
}

const country = (c: string) => (v: Json) => v.address?.country === c;

interface Case {
  operationId: string;
  base: (v: Json) => boolean;
  mutate: (v: Json) => void;
  /** The instancePath and keyword of an error the schema must report. */
  want: { instancePath: string; keyword: string };
}

const cases: [string, Case][] = [
  [
    "first name of 65 characters",
    {
      operationId: "createManualVerification",
      base: () => true,
      mutate: (v) => {
        v.individual.first_name = "A".repeat(65);
      },
      want: { instancePath: "/individual/first_name", keyword: "maxLength" },
    },
  ],
  [
    "last name missing",
    {
      operationId: "createManualVerification",
      base: () => true,
      mutate: (v) => {
        delete v.individual.last_name;
      },
      want: { instancePath: "/individual", keyword: "required" },
    },
  ],
  [
    "NZL resident without identity document",
    {
      operationId: "createManualVerification",
      base: country("NZL"),
      mutate: (v) => {
        delete v.identity_document;
      },
      want: { instancePath: "", keyword: "required" },
    },
  ],
  [
    "AUS driver licence without state_of_issue",
    {
      operationId: "createManualVerification",
      base: country("AUS"),
      mutate: (v) => {
        v.identity_document = {
          type: "driver_licence",
          country_of_issue: "AUS",
          primary_number: "12345678",
          secondary_number: "P1234567",
        };
      },
      want: { instancePath: "/identity_document", keyword: "required" },
    },
  ],
  [
    "PEP date of birth in ISO form",
    {
      operationId: "createPepCheck",
      base: () => true,
      mutate: (v) => {
        v.date_of_birth = "1985-03-14";
      },
      want: { instancePath: "/date_of_birth", keyword: "pattern" },
    },
  ],
  [
    "EDD process_status outside its four values",
    {
      operationId: "updateEddCaseStatus",
      base: () => true,
      mutate: (v) => {
        v.process_status = "closed";
      },
      want: { instancePath: "/process_status", keyword: "enum" },
    },
  ],
  [
    "empty property address",
    {
      operationId: "searchProperty",
      base: () => true,
      mutate: (v) => {
        v.address = {};
      },
      want: { instancePath: "/address", keyword: "minProperties" },
    },
  ],
  [
    "KYB company search without its wrapper",
    {
      operationId: "searchKybCompanies",
      base: () => true,
      mutate: (v) => {
        const inner = v.kyb_search_company;
        delete v.kyb_search_company;
        Object.assign(v, inner);
      },
      want: { instancePath: "", keyword: "required" },
    },
  ],
  [
    "KYB verification without its wrapper",
    {
      operationId: "createKybVerification",
      base: () => true,
      mutate: (v) => {
        const inner = v.kyb_verification;
        delete v.kyb_verification;
        Object.assign(v, inner);
      },
      want: { instancePath: "", keyword: "required" },
    },
  ],
];

describe("the document's invalid cases are rejected", () => {
  it.each(cases)("%s", (_name, c) => {
    const { schemaPointer, value } = pick(c.operationId, c.base);
    const validate = validator(schemaPointer);
    expect(validate(value), "the unmodified example must be valid").toBe(true);
    c.mutate(value);
    expect(validate(value)).toBe(false);
    const errors = (validate.errors ?? []).map((e) => ({ instancePath: e.instancePath, keyword: e.keyword }));
    expect(errors).toContainEqual(c.want);
  });
});

describe("the conditional rules accept what the document allows", () => {
  it("a GBR resident needs no identity document", () => {
    const { schemaPointer, value } = pick("createManualVerification", country("GBR"));
    delete value.identity_document;
    expect(validator(schemaPointer)(value)).toBe(true);
  });

  it("a NZL driver licence needs its version number, a NZL passport its expiry date", () => {
    const { schemaPointer, value } = pick("createManualVerification", country("NZL"));
    const validate = validator(schemaPointer);
    value.identity_document = { type: "driver_licence", country_of_issue: "NZL", primary_number: "DL123456" };
    expect(validate(value)).toBe(false);
    value.identity_document.secondary_number = "123";
    expect(validate(value)).toBe(true);
    value.identity_document = { type: "passport", country_of_issue: "NZL", primary_number: "LA123456" };
    expect(validate(value)).toBe(false);
    value.identity_document.date_of_expiry = "2031-05-01";
    expect(validate(value)).toBe(true);
  });

  it("address members follow the country", () => {
    const { schemaPointer, value } = pick("createManualVerification", country("AUS"));
    const validate = validator(schemaPointer);
    for (const member of ["suburb", "state"]) {
      const copy = structuredClone(value);
      delete copy.address[member];
      expect(validate(copy), `AUS without ${member}`).toBe(false);
    }
    const gbr = pick("createManualVerification", country("GBR"));
    delete gbr.value.address.city;
    expect(validator(gbr.schemaPointer)(gbr.value), "GBR without city").toBe(false);
  });

  it("request objects are closed to unknown members", () => {
    const { schemaPointer, value } = pick("createManualVerification");
    value.individual.nickname = "Jo";
    expect(validator(schemaPointer)(value)).toBe(false);
  });
});
