// The generative phase's values: request bodies made from an operation's schema (valid ones, and
// ones that break exactly one rule), and path parameter values. fast-check arbitraries, so that the
// phase's driver runs them under `fc.check` with its seed, and a failure shrinks.
import fc from "fast-check";
import type { Json } from "../../../src/contract/json.js";
import type { ProbeOperation } from "../contract-operations.js";
import { type BodyBytes, markReferences } from "../request-body.js";
import { brokenArbitrary } from "./broken.js";
import { brokenFormArbitrary, describeForm, formArbitrary, formBytes } from "./form.js";
import { deref, filteredOrNone, isObject, typesOf, UnsatisfiableSchema } from "./schema-shape.js";
import { integerAround, numberBounds, valueArbitrary } from "./values.js";
import { lengthBounds, patternOf } from "./strings.js";

/** Thrown when a schema has no value the generators can make (a `--spec` contract's): skip its operation. */
export { UnsatisfiableSchema };

/** A request body generated from an operation's schema. */
export interface GeneratedBody {
  /** Exact bytes and content type, ready to send. */
  body: BodyBytes;
  /** The JSON value (or a description of the form parts) it was made from. */
  value: unknown;
}

/** A generated body that breaks exactly one rule. */
export interface BrokenBody extends GeneratedBody {
  /** `maxLength`, `minimum`, `pattern`, `enum`, `type`, `required`, `country`, `date`, `format`, `undescribed`, `file-extension`, … */
  kind: string;
  /** In words, with a JSON pointer, never a value: `/individual/first_name longer than its maxLength (64)`. */
  rule: string;
}

/** The largest body generated: far below any limit, so that a run's memory stays small. */
export const MAX_GENERATED_BODY = 64 * 1024;

const jsonBody = (value: unknown, mediaType: string): BodyBytes => ({
  bytes: Buffer.from(JSON.stringify(value)),
  contentType: mediaType,
});

/** Bodies of an operation: valid ones (the contract and the document accept them), and one-rule-broken ones. */
export function bodyArbitraries(
  document: Json,
  body: NonNullable<ProbeOperation["body"]>,
  marker: string,
): { valid: fc.Arbitrary<GeneratedBody>; broken: fc.Arbitrary<BrokenBody> | undefined } {
  const small = (b: GeneratedBody) => b.body.bytes.length <= MAX_GENERATED_BODY;
  if (body.mediaType.toLowerCase() === "multipart/form-data") {
    const form = formArbitrary(document, body.schema);
    if (!form) throw new Error("the upload's schema accepts none of the file formats the probe makes");
    return {
      valid: form.map((v): GeneratedBody => ({ body: formBytes(v), value: describeForm(v) })).filter(small),
      broken: brokenFormArbitrary(form),
    };
  }
  // Every `reference` carries the run's marker: a record the probe creates says where it came from.
  const values = valueArbitrary(document, body.schema).map((v) => markReferences(v, marker));
  const broken = brokenArbitrary(document, body.schema, values);
  return {
    valid: values
      .map((value): GeneratedBody => ({ body: jsonBody(value, body.mediaType), value }))
      .filter(small),
    broken: broken
      ?.map((b): BrokenBody => ({
        kind: b.kind,
        rule: b.rule,
        value: b.value,
        body: jsonBody(b.value, body.mediaType),
      }))
      .filter(small),
  };
}

/** Characters a path segment carries as they are (RFC 3986's unreserved): no encoding can go wrong. */
const SEGMENT = /^[A-Za-z0-9._~-]+$/u;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Path parameter values of a schema: integer ids across their range (the bounds, and small ids
 * often), UUIDs (by format, or when every example is one), strings by pattern, or unreserved text.
 * Values are raw: a pattern's may need percent-encoding; the others never do.
 */
export function pathValueArbitrary(document: Json, schema: Json): fc.Arbitrary<string> {
  // A segment of dots is resolved away by every URL (`%2E` too): no client can send it as a value.
  return anyPathValue(document, schema).filter((v) => !/^\.{1,2}$/.test(v));
}

/** Path parameter values, dot segments included. */
function anyPathValue(document: Json, schema: Json): fc.Arbitrary<string> {
  const s = deref(document, schema);
  const types = typesOf(s);
  if (types.includes("integer") || types.includes("number")) {
    const { min, max } = numberBounds(s, true);
    const small = fc.integer({ min: Math.max(min, 1), max: Math.max(Math.min(max, 1000), Math.max(min, 1)) });
    return fc
      .oneof({ arbitrary: integerAround(min, max), weight: 1 }, { arbitrary: small, weight: 1 })
      .map(String);
  }
  if (!isObject(s)) return fc.stringMatching(SEGMENT);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum.map(String));
  const examples: unknown[] = Array.isArray(s.examples) ? s.examples : [];
  if (s.format === "uuid") return fc.uuid();
  if (examples.length > 0 && examples.every((e) => typeof e === "string" && UUID.test(e)))
    return fc.oneof(
      { arbitrary: fc.uuid(), weight: 3 },
      { arbitrary: fc.stringMatching(SEGMENT, { maxLength: 40 }), weight: 1 },
    );
  const { min, max } = lengthBounds(s);
  const re = patternOf(s);
  const made = re
    ? filteredOrNone(fc.stringMatching(re, { maxLength: max }), (v) => [...v].length >= min)
    : filteredOrNone(fc.stringMatching(SEGMENT, { maxLength: max }), (v) => v.length >= Math.max(min, 1));
  const known = examples.filter((e): e is string => typeof e === "string");
  if (made) return made;
  if (known.length > 0) return fc.constantFrom(...known);
  throw new UnsatisfiableSchema("no generated value meets the path parameter's schema");
}
