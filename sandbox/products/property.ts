// Property: the title search by address (POST /api/v4/search_property) and the verifications of a
// title (POST /api/v4/properties): its records, its handlers, and its slice of the --state file.
import type { Json } from "../../src/contract/json.js";
import { isObject } from "../state/checks.js";
import type { ProductSlice } from "../state/store.js";
import { file, intId, notFound } from "./answers.js";
import type { ServiceHandlers } from "./context.js";
import { renderPdf } from "./files/pdf.js";
import { renderZip } from "./files/zip.js";
import { zipTitle } from "./magic.js";
import { type Archivable, digitsOf } from "./records.js";

// Request bodies reach here only after the contract's schema accepted them.

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

/** Property verifications, by id; the state file holds [id, record] pairs. */
export const PROPERTY: ProductSlice<number, PropertyRecord> = {
  name: "property",
  saved: { form: "entries" },
  restorable: isObject,
};

export const propertyHandlers = {
  searchProperty: ({ value }) => ({ status: 200, json: propertySearch(value) }),
  createPropertyVerification: ({ sandbox, value, store }) => {
    const id = sandbox.nextId("property");
    const record = propertyVerification(
      id,
      value,
      zipTitle(value.res_attributes?.title_number) ? "zip" : "pdf",
    );
    store.put(PROPERTY, id, record);
    return { status: 200, json: record.body };
  },
  getOnlineOwnershipPdf: ({ store, op, param, exportOnce }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(PROPERTY, id);
    if (!record || record.kind !== "oov") return notFound(op, "Online Ownership verification");
    return exportOnce(PROPERTY, id as number, record, () => {
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
  getTitleSearchDocument: ({ store, op, now, param }) => {
    const id = intId(param);
    const record = id === undefined ? undefined : store.get(PROPERTY, id);
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
} satisfies Partial<ServiceHandlers>;
