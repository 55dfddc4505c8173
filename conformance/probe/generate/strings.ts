// Strings of a string schema: by its format, its pattern (fast-check's stringMatching, the `u` flag),
// the dates a pattern takes (DD/MM/YYYY or ISO, real days only), or any letters, non-ASCII ones
// often; lengths counted in code points as JSON Schema counts them, their boundaries often.
import fc from "fast-check";
import type { Json } from "../../../src/contract/json.js";
import { formatArbitrary, KNOWN_FORMATS } from "./formats.js";
import { dateArbitrary, type DateLayout } from "./dates.js";
import { filteredOrNone, isObject, UnsatisfiableSchema } from "./schema-shape.js";

/** The longest string generated without a maxLength, and the longest generated at all (64 KiB bodies). */
export const FREE_LENGTH = 24;
export const MAX_GENERATED_LENGTH = 1024;

/**
 * Characters of free text, one code point each: non-ASCII letters (Latin with diacritics, Polish,
 * Cyrillic, CJK, an astral letter of two UTF-16 units) and a combining mark, beside ASCII.
 */
const NON_ASCII = ["é", "ß", "Ł", "ø", "ñ", "ü", "ж", "Ω", "山", "田", "ā", "ő", "\u0301", "𝒜"];
const ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const PUNCTUATION = [" ", "-", "'", ".", ","];

/** One code point of free text: ASCII letters and digits most, non-ASCII letters often, some punctuation. */
export const textUnit: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...ASCII), weight: 6 },
  { arbitrary: fc.constantFrom(...NON_ASCII), weight: 3 },
  { arbitrary: fc.constantFrom(...PUNCTUATION), weight: 1 },
);

/** The number of code points of a string, as JSON Schema's length keywords count. */
export const codePoints = (s: string): number => [...s].length;

/**
 * Values of `inner`, and its `edges` (together about a quarter of the time, each as often as another).
 * An edge is shrunk as `inner` shrinks a value it did not make (an integer's edge towards its
 * minimum), so that a failure found at a boundary still shrinks through fast-check's own shrinking.
 */
class WithEdges<T> extends fc.Arbitrary<T> {
  constructor(
    private readonly inner: fc.Arbitrary<T>,
    private readonly edges: T[],
  ) {
    super();
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    const pick = mrng.nextInt(0, this.edges.length * 4 - 1);
    return pick < this.edges.length
      ? new fc.Value(this.edges[pick]!, undefined)
      : this.inner.generate(mrng, biasFactor);
  }
  canShrinkWithoutContext(value: unknown): value is T {
    return this.inner.canShrinkWithoutContext(value);
  }
  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.inner.canShrinkWithoutContext(value) || context !== undefined
      ? this.inner.shrink(value, context)
      : fc.Stream.nil();
  }
}

/** Values of `inner`, its edges (bounds, known values) often; see WithEdges. */
export function withEdges<T>(inner: fc.Arbitrary<T>, edges: T[]): fc.Arbitrary<T> {
  return edges.length === 0 ? inner : new WithEdges(inner, edges);
}

/** A length between the bounds, the bounds themselves often. */
export function lengthArbitrary(min: number, max: number): fc.Arbitrary<number> {
  if (min === max) return fc.constant(min);
  return withEdges(fc.integer({ min, max }), [min, max]);
}

/** Free text of a length in [min, max] code points. */
export function textArbitrary(min: number, max: number): fc.Arbitrary<string> {
  return lengthArbitrary(min, max).chain((n) =>
    fc.array(textUnit, { minLength: n, maxLength: n }).map((units) => units.join("")),
  );
}

/** The length bounds of a string schema, capped so that a body stays small. */
export function lengthBounds(schema: Json): { min: number; max: number } {
  const min = typeof schema.minLength === "number" ? Math.max(0, Math.ceil(schema.minLength)) : 0;
  const declared = typeof schema.maxLength === "number" ? Math.floor(schema.maxLength) : undefined;
  const max = Math.min(
    declared ?? Math.max(min + FREE_LENGTH, FREE_LENGTH),
    Math.max(min, MAX_GENERATED_LENGTH),
  );
  return { min, max: Math.max(min, max) };
}

/** The schema's pattern as a `u` regular expression, or undefined when it has none (or JavaScript cannot read it). */
export function patternOf(schema: Json): RegExp | undefined {
  if (!isObject(schema) || typeof schema.pattern !== "string") return undefined;
  try {
    return new RegExp(schema.pattern, "u");
  } catch {
    return undefined;
  }
}

/** Whether a string meets a string schema's own keywords (length, pattern, enum, const); formats not judged. */
export function meetsString(schema: Json, value: string): boolean {
  if (!isObject(schema)) return schema !== false;
  const { min } = lengthBounds(schema);
  const n = codePoints(value);
  if (n < min || (typeof schema.maxLength === "number" && n > schema.maxLength)) return false;
  if (typeof schema.pattern === "string" && !patternOf(schema)?.test(value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  return schema.const === undefined || schema.const === value;
}

/** The date layouts a pattern takes, found by asking it about one real date in each. */
export function dateLayoutsOf(re: RegExp): DateLayout[] {
  const layouts: DateLayout[] = [];
  if (re.test("14/03/1985")) layouts.push("DD/MM/YYYY");
  if (re.test("1985-03-14")) layouts.push("YYYY-MM-DD");
  return layouts;
}

/**
 * The strings of a string schema (without enum or const, which the caller handles). `hints` are
 * values the object's conditional rules test (`AUS` for a country pattern): mixed in, so that both
 * branches of each rule are reached.
 */
export function stringArbitrary(schema: Json, hints: string[] = []): fc.Arbitrary<string> {
  const { min, max } = lengthBounds(schema);
  const re = patternOf(schema);
  const fits = (s: string) => meetsString(schema, s);
  const examples = (Array.isArray(schema.examples) ? schema.examples : []).filter(
    (e: unknown): e is string => typeof e === "string" && fits(e),
  );
  const known = [...new Set([...hints.filter(fits), ...examples])];
  let base: fc.Arbitrary<string> | undefined;
  if (typeof schema.format === "string" && KNOWN_FORMATS.has(schema.format)) {
    base = filteredOrNone(formatArbitrary(schema.format), fits);
  } else if (re) {
    const layouts = dateLayoutsOf(re);
    const matching = filteredOrNone(fc.stringMatching(re, { maxLength: max }), fits);
    const dates =
      layouts.length > 0 ? filteredOrNone(fc.oneof(...layouts.map(dateArbitrary)), fits) : undefined;
    base =
      dates && matching
        ? fc.oneof({ arbitrary: dates, weight: 3 }, { arbitrary: matching, weight: 1 })
        : (dates ?? matching);
  } else {
    base = textArbitrary(min, max);
  }
  // A pattern or format the generators cannot meet falls back on the schema's own examples.
  if (!base && known.length > 0) return fc.constantFrom(...known);
  if (!base)
    throw new UnsatisfiableSchema("no generated string meets the schema's pattern, format and lengths");
  // Each known value as likely as another; all of them together about a quarter of the time.
  return withEdges(base, known);
}
