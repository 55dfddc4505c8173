// A schema as the generators read it: `$ref`s followed, an object's `allOf` members merged into one
// shape (members, required names, closed or not, its conditional rules), and the small evaluator of
// `if` schemas the conditional rules need (required, properties, const, enum, type).
import fc from "fast-check";
import { resolveRef } from "../../../src/contract/resolve-ref.js";
import type { Json } from "../../../src/contract/json.js";

/** Schema levels walked below a body's root; deeper members are neither generated nor broken. */
export const MAX_DEPTH = 8;

/** A schema the generators cannot make a value of (`false`, too deep, alternatives they cannot tell apart). */
export class UnsatisfiableSchema extends Error {}

/** How many values a filter is tried on before it is taken as one that would loop for ever. */
const FILTER_PROBE = 64;

/**
 * `arb` filtered by `keep`; undefined when no value of a fixed sample meets `keep`, since fast-check
 * would then draw for ever (a `--spec` contract's pattern with a long minLength, alternatives alike).
 */
export function filteredOrNone<T>(
  arb: fc.Arbitrary<T>,
  keep: (v: T) => boolean,
): fc.Arbitrary<T> | undefined {
  return fc.sample(arb, { numRuns: FILTER_PROBE, seed: 46 }).some(keep) ? arb.filter(keep) : undefined;
}

/** A conditional rule of an object: `if`, and the `then` or `else` that applies. */
export interface Condition {
  if: Json;
  then?: Json;
  else?: Json;
}

/** An object schema with its `allOf` members merged. */
export interface ObjectShape {
  /** Member name → the schemas it must meet (one per schema that names it; `true` left out). */
  properties: Map<string, Json[]>;
  required: Set<string>;
  /** `additionalProperties: false` or `unevaluatedProperties: false`: no undeclared member. */
  closed: boolean;
  conditions: Condition[];
  minProperties: number;
  maxProperties: number;
}

/** Whether a value is a plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A schema with its local `$ref`s followed. */
export function deref(document: Json, schema: Json): Json {
  return resolveRef(document, schema, "").node;
}

/** The JSON types a schema names (`type`, a string or an array), or none. */
export function typesOf(schema: Json): string[] {
  if (!isObject(schema)) return [];
  return Array.isArray(schema.type) ? schema.type.map(String) : schema.type ? [String(schema.type)] : [];
}

/** The JSON type of a value, as JSON Schema names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether a value has one of the types (an integer is a number too). */
export function hasType(types: string[], value: unknown): boolean {
  const t = jsonType(value);
  return types.length === 0 || types.includes(t) || (t === "integer" && types.includes("number"));
}

/** Whether a schema describes objects: it says `type: object`, or it has object keywords and no other type. */
export function isObjectSchema(schema: Json): boolean {
  const types = typesOf(schema);
  if (types.includes("object")) return true;
  return (
    types.length === 0 && isObject(schema) && (isObject(schema.properties) || Array.isArray(schema.required))
  );
}

/** The object shape of a schema, its `allOf` members merged (depth-capped against `$ref` cycles). */
export function objectShape(document: Json, schema: Json, depth = 0): ObjectShape {
  const shape: ObjectShape = {
    properties: new Map(),
    required: new Set(),
    closed: false,
    conditions: [],
    minProperties: 0,
    maxProperties: Number.POSITIVE_INFINITY,
  };
  mergeInto(document, shape, schema, depth);
  return shape;
}

function mergeInto(document: Json, shape: ObjectShape, raw: Json, depth: number): void {
  const s = deref(document, raw);
  if (!isObject(s) || depth > MAX_DEPTH) return;
  if (s.additionalProperties === false || s.unevaluatedProperties === false) shape.closed = true;
  for (const [name, member] of Object.entries<Json>(isObject(s.properties) ? s.properties : {})) {
    const list = shape.properties.get(name) ?? [];
    if (member !== true) list.push(deref(document, member));
    shape.properties.set(name, list);
  }
  for (const name of Array.isArray(s.required) ? s.required : []) shape.required.add(String(name));
  if (typeof s.minProperties === "number")
    shape.minProperties = Math.max(shape.minProperties, s.minProperties);
  if (typeof s.maxProperties === "number")
    shape.maxProperties = Math.min(shape.maxProperties, s.maxProperties);
  if (s.if !== undefined && (s.then !== undefined || s.else !== undefined))
    shape.conditions.push({ if: s.if, then: s.then, else: s.else });
  for (const member of Array.isArray(s.allOf) ? s.allOf : []) mergeInto(document, shape, member, depth + 1);
}

/** The one schema of a member: its schemas as an `allOf` when there are several, `true` when none. */
export function memberSchema(list: Json[] | undefined): Json {
  if (!list || list.length === 0) return true;
  return list.length === 1 ? list[0] : { allOf: list };
}

/**
 * Whether a value meets an `if` schema, for the keywords conditions use: required, properties,
 * const, enum, type (and allOf of those). Anything else is taken as met, as an empty schema is.
 */
export function meets(document: Json, schema: Json, value: unknown, depth = 0): boolean {
  const s = deref(document, schema);
  if (s === true || depth > MAX_DEPTH) return true;
  if (s === false || !isObject(s)) return false;
  if (s.const !== undefined && JSON.stringify(value) !== JSON.stringify(s.const)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e: Json) => JSON.stringify(e) === JSON.stringify(value)))
    return false;
  if (!hasType(typesOf(s), value)) return false;
  if (isObject(value)) {
    if (Array.isArray(s.required) && s.required.some((r: Json) => !Object.hasOwn(value, String(r))))
      return false;
    for (const [k, sub] of Object.entries<Json>(isObject(s.properties) ? s.properties : {}))
      if (Object.hasOwn(value, k) && !meets(document, sub, value[k], depth + 1)) return false;
  }
  return (Array.isArray(s.allOf) ? s.allOf : []).every((m: Json) => meets(document, m, value, depth + 1));
}

/** The branch of a condition that applies to a value: `then` when the `if` holds, else `else`. */
export function branchOf(document: Json, condition: Condition, value: unknown): Json {
  return meets(document, condition.if, value) ? condition.then : condition.else;
}

/** The names a branch (`then`/`else`) requires, its `allOf` members' included. */
export function branchRequired(document: Json, branch: Json): string[] {
  if (branch === undefined) return [];
  return [...objectShape(document, branch).required];
}

/**
 * The members the applying branches of an object's conditions require and it lacks, as JSON
 * pointers, for every object of a value (the conditional rules a value breaks).
 */
export function missingConditional(
  document: Json,
  schema: Json,
  value: unknown,
  at = "",
  depth = 0,
): string[] {
  if (!isObject(value) || depth > MAX_DEPTH) return [];
  const shape = objectShape(document, schema);
  const out: string[] = [];
  for (const c of shape.conditions)
    for (const name of branchRequired(document, branchOf(document, c, value)))
      if (!Object.hasOwn(value, name)) out.push(`${at}/${name}`);
  for (const [name, list] of shape.properties)
    if (Object.hasOwn(value, name))
      for (const sub of list)
        out.push(...missingConditional(document, sub, value[name], `${at}/${name}`, depth + 1));
  return out;
}

/**
 * Which `if` schemas of a value's objects hold and which do not, keyed by the `if` schema itself: how
 * a test sees that both branches of each rule are generated.
 */
export function conditionOutcomes(
  document: Json,
  schema: Json,
  value: unknown,
  out = new Map<Json, { held: number; failed: number }>(),
  depth = 0,
): Map<Json, { held: number; failed: number }> {
  const s = deref(document, schema);
  if (!isObject(value) || depth > MAX_DEPTH || !isObject(s)) return out;
  const alternatives = [s.oneOf, s.anyOf].flatMap((list) => (Array.isArray(list) ? (list as Json[]) : []));
  for (const alternative of alternatives)
    if (meetsShape(document, alternative, value))
      conditionOutcomes(document, alternative, value, out, depth + 1);
  const shape = objectShape(document, s);
  for (const c of shape.conditions) {
    const count = out.get(c.if) ?? { held: 0, failed: 0 };
    if (meets(document, c.if, value)) count.held++;
    else count.failed++;
    out.set(c.if, count);
  }
  for (const [name, list] of shape.properties)
    if (Object.hasOwn(value, name))
      for (const sub of list) conditionOutcomes(document, sub, value[name], out, depth + 1);
  return out;
}

/**
 * Whether a value may meet an object alternative: it has the alternative's required members and, when
 * the alternative is closed, no member it does not declare. A false answer is certain; a true one is
 * what lets `oneOf` values be told apart.
 */
export function meetsShape(document: Json, alternative: Json, value: unknown): boolean {
  const s = deref(document, alternative);
  if (!isObject(s)) return s !== false;
  if (!hasType(typesOf(s), value)) return false;
  if (!isObject(value) || !isObjectSchema(s)) return meets(document, s, value);
  const shape = objectShape(document, s);
  for (const name of shape.required) if (!Object.hasOwn(value, name)) return false;
  if (shape.closed) for (const name of Object.keys(value)) if (!shape.properties.has(name)) return false;
  return true;
}
