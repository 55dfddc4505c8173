// The service's two error shapes, built for the servers' rejections (the mock's and the sandbox's).
import { randomUUID } from "node:crypto";
import type { ErrorObject } from "ajv";
import type { ErrorShape } from "./operations.js";
import { unescapeToken } from "../contract/json-pointer.js";

/** validation_errors: nested like the request, an array of messages for each failing member. */
export interface Nested {
  [key: string]: string[] | Nested;
}

export interface Rejection {
  status: number;
  body: Record<string, unknown>;
}

/** A short, value-free message for one ajv error, in the service's wording. */
export function describeError(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return "can't be blank";
    case "maxLength":
      return `is too long (maximum is ${p.limit} characters)`;
    case "minLength":
      return `is too short (minimum is ${p.limit} characters)`;
    case "enum":
    case "const":
      return "is not included in the list";
    case "type":
      return `must be ${Array.isArray(p.type) ? p.type.join(" or ") : p.type}`;
    case "pattern":
    case "format":
      return "is invalid";
    case "minProperties":
      return "can't be empty";
    case "maxProperties":
      return p.limit === 0 ? "must be empty" : `has too many members (maximum is ${p.limit})`;
    case "unevaluatedProperties":
    case "additionalProperties":
      return "is not a permitted member";
    default:
      return "is invalid";
  }
}

/** The request member an ajv error is about, as path segments (`required` names the missing member). */
export function memberPath(error: ErrorObject): string[] {
  const segments = error.instancePath.split("/").slice(1).map(unescapeToken);
  const p = error.params as Record<string, string>;
  if (error.keyword === "required" && p.missingProperty) segments.push(p.missingProperty);
  if (error.keyword === "unevaluatedProperties" && p.unevaluatedProperty)
    segments.push(p.unevaluatedProperty);
  if (error.keyword === "additionalProperties" && p.additionalProperty) segments.push(p.additionalProperty);
  return segments;
}

const MEMBER_KEYWORDS = ["unevaluatedProperties", "additionalProperties"];

/**
 * The errors that name a member; if/then and oneOf wrappers only repeat what their branches say, and
 * so does an object's maxProperties beside an error naming the member it does not permit.
 */
const specific = (errors: ErrorObject[]) =>
  errors.filter(
    (e) =>
      !["if", "oneOf", "anyOf", "allOf", "not"].includes(e.keyword) &&
      !(
        e.keyword === "maxProperties" &&
        errors.some((o) => MEMBER_KEYWORDS.includes(o.keyword) && o.instancePath === e.instancePath)
      ),
  );

/** A node of validation_errors: null-prototype, because its keys are the request's member names (`__proto__` too). */
const node = (): Nested => Object.create(null);

/** Messages keyed like the request: one array of messages per failing member. */
export function validationErrors(errors: ErrorObject[]): Nested {
  const out = node();
  for (const error of specific(errors)) {
    const path = memberPath(error);
    const leaf = path.pop() ?? "base";
    let at = out;
    for (const segment of path) {
      const next = at[segment];
      // A member that has messages and failing members of its own keeps its messages under `base`.
      let child: Nested;
      if (next === undefined) child = node();
      else if (Array.isArray(next)) {
        child = node();
        child.base = next;
      } else child = next;
      at[segment] = child;
      at = child;
    }
    const current = at[leaf];
    const messages = Array.isArray(current) ? current : current?.base;
    const list = Array.isArray(messages) ? messages : [];
    const message = describeError(error);
    if (!list.includes(message)) list.push(message);
    if (current !== undefined && !Array.isArray(current)) current.base = list;
    else at[leaf] = list;
  }
  return out;
}

/** One line naming the failing members, without their values. */
export function summarise(errors: ErrorObject[]): string {
  const members = [...new Set(specific(errors).map((e) => memberPath(e).join(".") || "body"))];
  return `Validation failed: ${members.slice(0, 5).join(", ")}${members.length > 5 ? ", …" : ""}.`;
}

/** A rejection in the operation's error shape. */
export function rejection(
  shape: ErrorShape,
  status: number,
  code: string,
  message: string,
  request: { reference?: unknown; external_id?: unknown },
  details?: Nested,
): Rejection {
  if (shape === "B") return { status, body: { error_code: code, message } };
  const body: Record<string, unknown> = {
    metadata: {
      reference: typeof request.reference === "string" ? request.reference : null,
      external_id: typeof request.external_id === "string" ? request.external_id : null,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      api_version: "v2",
      request_id: randomUUID(),
    },
    message,
    error_type: code,
  };
  if (details) body.validation_errors = details;
  return { status, body };
}
