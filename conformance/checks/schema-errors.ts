import type { ErrorObject } from "ajv";
import type { CheckName, FindingList, FindingLocation } from "../findings/findings.js";
import { pointerToken, safePointer } from "../findings/redact.js";
import { unescapeToken } from "../../src/contract/json-pointer.js";

// ajv's own messages are safe today, but a future keyword or format could quote the instance. Messages are
// therefore built here from the keyword, the location and the schema's facts only; never from the data.

const MAX_ALLOWED_SHOWN = 12;

const show = (value: unknown): string => JSON.stringify(value);

/** What each size keyword counts, as its message names it. */
const COUNTED: Readonly<Record<string, string>> = {
  minLength: "characters",
  maxLength: "characters",
  minItems: "items",
  maxItems: "items",
  minProperties: "members",
  maxProperties: "members",
};

/** The pointer of an ajv error (its instancePath is a JSON pointer), with keys that look like personal data masked. */
function errorPointer(error: ErrorObject, member?: string): string {
  const pointer = safePointer(error.instancePath);
  return member === undefined ? pointer : `${pointer}/${pointerToken(member)}`;
}

/** The JSON type of a value, as `type` names it ("integer" for whole numbers). */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The value at an ajv instancePath; used only for its JSON type. */
function valueAt(root: unknown, instancePath: string): unknown {
  if (instancePath === "") return root;
  let node: unknown = root;
  for (const raw of instancePath.slice(1).split("/")) {
    if (node === null || typeof node !== "object") return undefined;
    const key = unescapeToken(raw);
    // Only the instance's own members: `constructor` must not find Object's.
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

function allowedList(values: unknown[]): string {
  const shown = values.slice(0, MAX_ALLOWED_SHOWN).map(show).join(", ");
  return values.length > MAX_ALLOWED_SHOWN ? `${shown}, … (${values.length} values)` : shown;
}

/** A message and pointer for one ajv error; undefined for errors that only summarise others. */
function describeSchemaError(
  error: ErrorObject,
  instance?: unknown,
): { pointer: string; message: string } | undefined {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "if":
      // The failing "then"/"else" branch reports its own errors.
      return undefined;
    case "required":
      return {
        pointer: errorPointer(error, String(p.missingProperty)),
        message: `required member ${show(p.missingProperty)} is missing`,
      };
    case "dependentRequired":
      return {
        pointer: errorPointer(error, String(p.missingProperty)),
        message: `member ${show(p.missingProperty)} is required when ${show(p.property)} is present`,
      };
    case "unevaluatedProperties":
    case "additionalProperties": {
      const member = String(p.unevaluatedProperty ?? p.additionalProperty);
      return { pointer: errorPointer(error, member), message: "member is not described by the contract" };
    }
    case "type":
      return {
        pointer: errorPointer(error),
        message: `must be ${p.type} (is ${jsonType(valueAt(instance, error.instancePath))})`,
      };
    case "enum":
      return {
        pointer: errorPointer(error),
        message: `must be one of ${allowedList((p.allowedValues as unknown[]) ?? [])}`,
      };
    case "const":
      return { pointer: errorPointer(error), message: `must be ${show(p.allowedValue)}` };
    case "format":
      return { pointer: errorPointer(error), message: `must be a valid ${show(p.format)}` };
    case "pattern":
      return { pointer: errorPointer(error), message: `must match the pattern ${show(p.pattern)}` };
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
    case "minProperties":
    case "maxProperties":
      return {
        pointer: errorPointer(error),
        message: `must have ${error.keyword.startsWith("min") ? "at least" : "at most"} ${p.limit} ${COUNTED[error.keyword]}`,
      };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return { pointer: errorPointer(error), message: `must be ${p.comparison} ${p.limit}` };
    case "multipleOf":
      return { pointer: errorPointer(error), message: `must be a multiple of ${p.multipleOf}` };
    case "uniqueItems":
      return { pointer: errorPointer(error), message: "items must be unique" };
    case "oneOf":
      return {
        pointer: errorPointer(error),
        message:
          p.passingSchemas == null
            ? "must match one of the alternatives the contract gives"
            : "must match exactly one alternative, but matches several",
      };
    case "anyOf":
      return {
        pointer: errorPointer(error),
        message: "must match at least one alternative the contract gives",
      };
    case "not":
      return { pointer: errorPointer(error), message: "must not match the schema under `not`" };
    case "false schema":
      return { pointer: errorPointer(error), message: "must not be present" };
    default:
      return { pointer: errorPointer(error), message: `does not satisfy the ${show(error.keyword)} keyword` };
  }
}

/**
 * Record every ajv error as a violation, pointer relative to `base` (e.g. `/query/id`), message after
 * `prefix` (e.g. `not a ServiceError: `).
 */
export function reportSchemaErrors(
  findings: FindingList,
  where: FindingLocation,
  check: CheckName,
  errors: ErrorObject[] | null | undefined,
  instance: unknown,
  base = "",
  prefix = "",
): void {
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    const described = describeSchemaError(error, instance);
    if (!described) continue;
    const key = `${described.pointer}\n${described.message}`;
    // allOf branches can report the same fact twice.
    if (seen.has(key)) continue;
    seen.add(key);
    findings.fail(where, check, base + described.pointer, prefix + described.message);
  }
}
