// The one-rule breaks of a single value (a string, a number, any value's type): one past each length
// and numeric boundary, off the pattern, outside the enum, a malformed format, an impossible date.
// Each replacement is kept only when it breaks that rule alone (its pattern, format and lengths met).
import type { Json } from "../../../src/contract/json.js";
import { IMPOSSIBLE, writeDay } from "./dates.js";
import { impossibleIsoDates, malformed, meetsFormat } from "./formats.js";
import { isObject, typesOf } from "./schema-shape.js";
import { codePoints, dateLayoutsOf, patternOf } from "./strings.js";
import { numberBounds } from "./values.js";

/** A replacement of one value that breaks one rule of its schema. */
export interface LeafBreak {
  kind: string;
  /** The rule, after the value's pointer: `longer than its maxLength (64)`. */
  rule: string;
  /** The replacements (each breaks the rule alone). */
  values: unknown[];
}

/** A value of a JSON type the schema does not take (undefined when it takes every type). */
export function wrongTypeValue(types: string[]): unknown {
  if (types.length === 0) return undefined;
  const takes = (t: string) => types.includes(t) || (t === "integer" && types.includes("number"));
  if (!takes("string")) return "probe-wrong-type";
  if (!takes("integer")) return 12345;
  if (!takes("boolean")) return true;
  if (!takes("object")) return {};
  return takes("null") ? undefined : null;
}

/** Whether a string meets every keyword of its schema but `except` (the rule being broken). */
function meetsOthers(s: Json, value: string, except: string): boolean {
  const n = codePoints(value);
  if (except !== "maxLength" && typeof s.maxLength === "number" && n > s.maxLength) return false;
  if (except !== "minLength" && typeof s.minLength === "number" && n < s.minLength) return false;
  const re = patternOf(s);
  if (except !== "pattern" && re && !re.test(value)) return false;
  if (except !== "format" && typeof s.format === "string" && !meetsFormat(s.format, value)) return false;
  if (except !== "enum" && Array.isArray(s.enum) && !s.enum.includes(value)) return false;
  return except === "const" || s.const === undefined || s.const === value;
}

/** The strings that break `rule` and only it, or none. */
function only(s: Json, rule: string, tries: string[], breaks: (t: string) => boolean): string[] {
  return [...new Set(tries)].filter((t) => breaks(t) && meetsOthers(s, t, rule));
}

/** Strings off a pattern, made from a valid one so that its length and format stay met where they can. */
function offPatternTries(value: string): string[] {
  const chars = [...value];
  return [
    `${value}!`,
    `!${value}`,
    ["!", ...chars.slice(1)].join(""),
    [...chars.slice(0, -1), " "].join(""),
    value.toLowerCase(),
    value.toUpperCase(),
    ` ${value}`,
    "",
    "probe value",
    "0",
    `${value.replace(/\//g, "-")}`,
    `${value.replace(/^https:/, "http:")}`,
  ];
}

/** The breaks of a string value. */
function stringBreaks(s: Json, value: string): LeafBreak[] {
  const out: LeafBreak[] = [];
  const add = (kind: string, rule: string, values: string[]) => {
    if (values.length > 0) out.push({ kind, rule, values });
  };
  const n = codePoints(value);
  if (typeof s.maxLength === "number" && s.maxLength < 100_000) {
    const over = s.maxLength + 1 - n;
    const last = [...value].pop() ?? "a";
    const tries =
      over > 0 ? [value + last.repeat(over), value + "山".repeat(over), value + "𝒜".repeat(over)] : [];
    add(
      "maxLength",
      `longer than its maxLength (${s.maxLength})`,
      only(s, "maxLength", tries, (t) => codePoints(t) > s.maxLength),
    );
  }
  if (typeof s.minLength === "number" && s.minLength > 0 && n >= s.minLength) {
    const cut = [...value].slice(0, s.minLength - 1).join("");
    add(
      "minLength",
      `shorter than its minLength (${s.minLength})`,
      only(s, "minLength", [cut], (t) => codePoints(t) < s.minLength),
    );
  }
  const re = patternOf(s);
  if (re) {
    const layouts = dateLayoutsOf(re);
    const impossible = layouts.flatMap((l) => IMPOSSIBLE.map((d) => writeDay(d, l)));
    add(
      "date",
      "an impossible date (a day its month does not have)",
      only(s, "pattern", impossible, (t) => !re.test(t)),
    );
    add(
      "pattern",
      "off its pattern",
      only(s, "pattern", offPatternTries(value), (t) => !re.test(t)),
    );
  }
  if (typeof s.format === "string") {
    if (s.format === "date")
      add(
        "date",
        "an impossible date (a day its month does not have)",
        only(s, "format", impossibleIsoDates(), (t) => !meetsFormat("date", t)),
      );
    const bad = malformed(s.format);
    if (bad)
      add(
        bad.kind,
        `not a valid ${s.format}`,
        only(s, "format", bad.values, (t) => !meetsFormat(String(s.format), t)),
      );
  }
  if (Array.isArray(s.enum))
    add(
      "enum",
      "outside its enum",
      only(s, "enum", ["probe-not-in-enum", `${value}-probe`], (t) => !s.enum.includes(t)),
    );
  if (s.const !== undefined)
    add(
      "enum",
      "not its const",
      only(s, "const", ["probe-not-the-const"], (t) => t !== s.const),
    );
  return out;
}

/** The breaks of a number value: one past each bound, off its multipleOf. */
function numberBreaks(s: Json, value: number, integer: boolean): LeafBreak[] {
  const out: LeafBreak[] = [];
  const { min, max } = numberBounds(s, integer);
  const step = integer ? 1 : Math.max(Math.abs(min), Math.abs(max), 1) * 1e-6;
  const m = typeof s.multipleOf === "number" ? s.multipleOf : undefined;
  const fine = (t: number) =>
    Number.isSafeInteger(Math.round(t)) && (m === undefined || Math.abs(t / m - Math.round(t / m)) < 1e-9);
  if (typeof s.minimum === "number" || typeof s.exclusiveMinimum === "number") {
    const t =
      typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : (s.minimum as number) - (m ?? step);
    if (fine(t))
      out.push({
        kind: "minimum",
        rule: `below its minimum (${s.minimum ?? `more than ${s.exclusiveMinimum}`})`,
        values: [t],
      });
  }
  if (typeof s.maximum === "number" || typeof s.exclusiveMaximum === "number") {
    const t =
      typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : (s.maximum as number) + (m ?? step);
    if (fine(t))
      out.push({
        kind: "maximum",
        rule: `above its maximum (${s.maximum ?? `less than ${s.exclusiveMaximum}`})`,
        values: [t],
      });
  }
  if (m !== undefined) {
    const t = value + (integer && Number.isInteger(m / 2) ? m / 2 : integer ? 1 : m / 2);
    if (
      t >= min &&
      t <= max &&
      Math.abs(t / m - Math.round(t / m)) > 1e-9 &&
      (!integer || Number.isInteger(t))
    )
      out.push({ kind: "multipleOf", rule: `not a multiple of ${m}`, values: [t] });
  }
  return out;
}

/** Every one-rule break of a value of a (resolved, flattened) schema, its type's included. */
export function leafBreaks(s: Json, value: unknown): LeafBreak[] {
  if (!isObject(s)) return [];
  const out: LeafBreak[] = [];
  const wrong = wrongTypeValue(typesOf(s));
  if (wrong !== undefined) out.push({ kind: "type", rule: "of the wrong type", values: [wrong] });
  if (typeof value === "string") out.push(...stringBreaks(s, value));
  else if (typeof value === "number") out.push(...numberBreaks(s, value, typesOf(s).includes("integer")));
  else if (Array.isArray(s.enum) && value !== null && typeof value !== "object")
    out.push({ kind: "enum", rule: "outside its enum", values: ["probe-not-in-enum"] });
  return out;
}
