// Valid JSON values of a schema: every keyword the contract's request bodies use, objects with their
// optional members present and absent and their conditional rules met (a member an applying `then`
// requires is added), `oneOf` alternatives told apart, numbers and lengths at their boundaries.
import fc from "fast-check";
import type { Json } from "../../../src/contract/json.js";
import {
  branchOf,
  branchRequired,
  deref,
  filteredOrNone,
  isObject,
  isObjectSchema,
  MAX_DEPTH,
  memberSchema,
  meetsShape,
  objectShape,
  typesOf,
  UnsatisfiableSchema,
} from "./schema-shape.js";
import { stringArbitrary, withEdges } from "./strings.js";

/** The most items an array gets above its minItems. */
const FREE_ITEMS = 3;

/** The string values `if` schemas test a member for (their const and enum): mixed into its values. */
function hintValues(hints: Json[]): string[] {
  const out: string[] = [];
  for (const h of hints) {
    if (!isObject(h)) continue;
    if (typeof h.const === "string") out.push(h.const);
    for (const e of Array.isArray(h.enum) ? h.enum : []) if (typeof e === "string") out.push(e);
  }
  return out;
}

/** The JSON types to generate for a schema: its own, or the one its keywords imply. */
function typesToMake(s: Json): string[] {
  const types = typesOf(s);
  if (types.length > 0) return types;
  if (isObjectSchema(s)) return ["object"];
  if (isObject(s) && (s.items !== undefined || s.minItems !== undefined)) return ["array"];
  if (isObject(s) && (s.minimum !== undefined || s.maximum !== undefined)) return ["number"];
  return ["string"];
}

/** The keywords of an `allOf` of non-object schemas, in one schema (the contract's are disjoint). */
function flatten(document: Json, s: Json): Json {
  if (!isObject(s) || !Array.isArray(s.allOf) || isObjectSchema(s)) return s;
  const merged: Record<string, Json> = { ...s };
  delete merged.allOf;
  for (const member of s.allOf) Object.assign(merged, flatten(document, deref(document, member)));
  return merged;
}

/** Valid values of a schema; `hints` are the `if` schemas that test this value. */
export function valueArbitrary(
  document: Json,
  raw: Json,
  depth = 0,
  hints: Json[] = [],
): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH * 2)
    throw new UnsatisfiableSchema("the schema requires members deeper than the generators go");
  const s = flatten(document, deref(document, raw));
  if (s === false) throw new UnsatisfiableSchema("a schema of `false` has no value");
  if (!isObject(s)) return stringArbitrary({});
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0) return oneOfArbitrary(document, s.oneOf, depth, hints);
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0)
    return fc.oneof(
      ...s.anyOf.map((b: Json) =>
        valueArbitrary(document, { ...s, anyOf: undefined, ...deref(document, b) }, depth + 1, hints),
      ),
    );
  const arbitraries = typesToMake(s).map((type) => typedArbitrary(document, s, type, depth, hints));
  return arbitraries.length === 1 ? arbitraries[0]! : fc.oneof(...arbitraries);
}

/** Values of one alternative of a `oneOf` that no other alternative could take. */
function oneOfArbitrary(
  document: Json,
  alternatives: Json[],
  depth: number,
  hints: Json[],
): fc.Arbitrary<unknown> {
  const told = alternatives.flatMap((alternative, i) => {
    const others = alternatives.filter((_, j) => j !== i);
    const apart = filteredOrNone(valueArbitrary(document, alternative, depth + 1, hints), (v) =>
      others.every((o) => !meetsShape(document, o, v)),
    );
    return apart ? [apart] : [];
  });
  if (told.length === 0)
    throw new UnsatisfiableSchema("no value of a oneOf alternative is told apart from the others");
  return fc.oneof(...told);
}

function typedArbitrary(
  document: Json,
  s: Json,
  type: string,
  depth: number,
  hints: Json[],
): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
    case "number":
      return numberArbitrary(s, type === "integer");
    case "array":
      return arrayArbitrary(document, s, depth);
    case "object":
      return objectArbitrary(document, s, depth, hints);
    default:
      return stringArbitrary(s, hintValues(hints));
  }
}

/** The inclusive bounds of a numeric schema (exclusive ones moved in by one for integers). */
export function numberBounds(s: Json, integer: boolean): { min: number; max: number } {
  const step = integer ? 1 : 0;
  let min = typeof s.minimum === "number" ? s.minimum : -1_000_000;
  let max =
    typeof s.maximum === "number"
      ? s.maximum
      : integer && typeof s.minimum === "number"
        ? Number.MAX_SAFE_INTEGER
        : 1_000_000;
  if (typeof s.exclusiveMinimum === "number") min = Math.max(min, s.exclusiveMinimum + step);
  if (typeof s.exclusiveMaximum === "number") max = Math.min(max, s.exclusiveMaximum - step);
  if (integer) return { min: Math.ceil(min), max: Math.floor(max) };
  return { min, max };
}

/** Numbers in range, the boundaries (and their neighbours) often, multiples of `multipleOf` when it is set. */
export function numberArbitrary(s: Json, integer: boolean): fc.Arbitrary<number> {
  const { min, max } = numberBounds(s, integer);
  const minExcluded = !integer && typeof s.exclusiveMinimum === "number" && s.exclusiveMinimum >= min;
  const maxExcluded = !integer && typeof s.exclusiveMaximum === "number" && s.exclusiveMaximum <= max;
  if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
    const m = s.multipleOf;
    const lo = Math.ceil(min / m) + (minExcluded && Math.ceil(min / m) * m === min ? 1 : 0);
    const hi = Math.floor(max / m) - (maxExcluded && Math.floor(max / m) * m === max ? 1 : 0);
    return integerAround(Math.max(lo, -1e9), Math.min(hi, 1e9)).map((k) =>
      Number.isInteger(m) ? k * m : Number((k * m).toPrecision(12)),
    );
  }
  if (integer) return integerAround(min, max);
  const inner = fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true });
  const edges = [minExcluded ? undefined : min, maxExcluded ? undefined : max].filter(
    (n): n is number => n !== undefined,
  );
  return withEdges(inner, edges);
}

/** Integers in [min, max], the bounds and their neighbours often. */
export function integerAround(min: number, max: number): fc.Arbitrary<number> {
  const edges = [...new Set([min, min + 1, max - 1, max].filter((n) => n >= min && n <= max))];
  return withEdges(fc.integer({ min, max }), edges);
}

function arrayArbitrary(document: Json, s: Json, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = typeof s.minItems === "number" ? s.minItems : 0;
  const maxLength = Math.min(
    typeof s.maxItems === "number" ? s.maxItems : minLength + FREE_ITEMS,
    minLength + FREE_ITEMS,
  );
  const items = valueArbitrary(document, s.items ?? {}, depth + 1);
  return s.uniqueItems === true
    ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
    : fc.array(items, { minLength, maxLength });
}

/** Each member's `if` schemas: the object's own conditions' and those the enclosing object's conditions test it with. */
function memberHints(
  document: Json,
  shape: ReturnType<typeof objectShape>,
  hints: Json[],
): Map<string, Json[]> {
  const out = new Map<string, Json[]>();
  for (const raw of [...hints, ...shape.conditions.map((c) => c.if)]) {
    const h = deref(document, raw);
    if (!isObject(h) || !isObject(h.properties)) continue;
    for (const [name, sub] of Object.entries<Json>(h.properties))
      out.set(name, [...(out.get(name) ?? []), deref(document, sub)]);
  }
  return out;
}

/** Objects: required members, optional ones present or absent, what the applying conditional rules require added. */
function objectArbitrary(
  document: Json,
  s: Json,
  depth: number,
  hints: Json[],
): fc.Arbitrary<Record<string, unknown>> {
  const shape = objectShape(document, s);
  const byHint = memberHints(document, shape, hints);
  const conditional = new Set(
    shape.conditions.flatMap((c) => [
      ...branchRequired(document, c.then),
      ...branchRequired(document, c.else),
    ]),
  );
  const names = [...new Set([...shape.properties.keys(), ...shape.required])].filter(
    (n) => shape.required.has(n) || conditional.has(n) || depth < MAX_DEPTH,
  );
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names)
    Object.defineProperty(members, name, {
      value: valueArbitrary(
        document,
        memberSchema(shape.properties.get(name)),
        depth + 1,
        byHint.get(name) ?? [],
      ),
      enumerable: true,
    });
  const optional = names.filter((n) => !shape.required.has(n));
  return fc
    .tuple(
      fc.record(members),
      fc.array(fc.boolean(), { minLength: optional.length, maxLength: optional.length }),
    )
    .map(([all, present]) => {
      const keep = new Set([...shape.required, ...optional.filter((_, i) => present[i])]);
      const forced = new Set<string>();
      // The conditions' required members, until none is added (an added member may make another `if` hold).
      for (let round = 0; round <= shape.conditions.length; round++) {
        const made = assemble(names, all, keep);
        const before = keep.size;
        for (const c of shape.conditions)
          for (const name of branchRequired(document, branchOf(document, c, made)))
            if (Object.hasOwn(all, name) && !keep.has(name)) {
              keep.add(name);
              forced.add(name);
            }
        if (keep.size === before) break;
      }
      for (const name of optional) if (keep.size < shape.minProperties) keep.add(name);
      for (const name of [...optional].reverse())
        if (keep.size > shape.maxProperties && !forced.has(name)) keep.delete(name);
      return assemble(names, all, keep);
    });
}

/** The members kept, in the contract's order (defineProperty: a member named `__proto__` stays a member). */
function assemble(names: string[], all: Record<string, unknown>, keep: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names)
    if (keep.has(name) && Object.hasOwn(all, name))
      Object.defineProperty(out, name, {
        value: all[name],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return out;
}
