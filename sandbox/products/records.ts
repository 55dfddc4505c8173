// What every product's records share: timestamps as the service writes them, the contract's examples,
// stable digits from a text, and the erasure of an archived record's personal data.
import { createHash } from "node:crypto";
import bundled from "../../generated/openapi.json" with { type: "json" };
import type { Json } from "../../src/contract/json.js";

// Request bodies reach here only after the contract's schema accepted them.

const examples = (bundled as Json).components.examples as Record<string, { value: Json }>;
/** A copy of one of the contract's examples, by name. */
export const example = (name: string): Json => structuredClone(examples[name]?.value);

/** Seconds precision, as the service's RFC 3339 timestamps. */
export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A stable number of `digits` digits from a text: the same address always finds the same titles. */
export function digitsOf(text: string, digits: number): string {
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
