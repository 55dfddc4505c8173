// Bodies that break exactly one rule, on top of a generated valid one: the candidates of each member
// (a required one dropped, a conditional rule's member dropped while its `if` holds, an undescribed
// member, each value's own breaks of broken-leaves.ts), one chosen by fast-check so that it shrinks.
import fc from "fast-check";
import type { Json } from "../../../src/contract/json.js";
import { leafBreaks } from "./broken-leaves.js";
import {
  branchOf,
  branchRequired,
  deref,
  filteredOrNone,
  isObject,
  isObjectSchema,
  MAX_DEPTH,
  meetsShape,
  memberSchema,
  missingConditional,
  objectShape,
} from "./schema-shape.js";
import { codePoints } from "./strings.js";

/** A body value that breaks one rule, the valid value it was made from, and the rule. */
export interface BrokenValue {
  kind: string;
  rule: string;
  /** The broken value. */
  value: unknown;
  /** The valid value it was made from (the same with the broken member restored). */
  valid: unknown;
  /** Where the broken member sits (`/individual/first_name`; empty for the body itself). */
  pointer: string;
}

type Path = (string | number)[];

/** One candidate: the rule, where, and the broken bodies (whole roots). */
interface Candidate {
  kind: string;
  rule: string;
  pointer: string;
  /** The broken roots, each kept only when it breaks this rule alone. */
  roots: unknown[];
}

/** What a candidate's broken root must still meet: it may meet none of the `oneOf` alternatives it did not come from. */
type Guard = (root: unknown) => boolean;

const escape = (token: string | number) => String(token).replace(/~/g, "~0").replace(/\//g, "~1");
const pointerOf = (path: Path) => path.map((t) => `/${escape(t)}`).join("");
const where = (path: Path) => (path.length === 0 ? "the body" : pointerOf(path));

/** A copy of a root with the value at `path` replaced (or, with `drop`, removed). */
function replaced(root: unknown, path: Path, value: unknown, drop = false): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  const last = path[path.length - 1]!;
  if (drop) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete (node as Record<string, unknown>)[last];
  } else {
    Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The value at a path of a root. */
function valueAt(root: unknown, path: Path): unknown {
  let node: unknown = root;
  for (const key of path) node = (node as Record<string | number, unknown>)[key];
  return node;
}

class Collector {
  readonly out: Candidate[] = [];
  constructor(
    private readonly document: Json,
    private readonly root: unknown,
  ) {}

  add(kind: string, rule: string, path: Path, roots: unknown[], guards: Guard[]): void {
    const kept = roots.filter((r) => guards.every((g) => g(r)));
    if (kept.length > 0) this.out.push({ kind, rule, pointer: pointerOf(path), roots: kept });
  }

  /** Every candidate of a value at `path` of its schema. */
  walk(raw: Json, path: Path, guards: Guard[], depth: number): void {
    const s = deref(this.document, raw);
    const value = valueAt(this.root, path);
    if (!isObject(s) || depth > MAX_DEPTH) return;
    for (const key of ["oneOf", "anyOf"] as const) {
      const alternatives: Json[] = Array.isArray(s[key]) ? s[key] : [];
      const from = alternatives.findIndex((a) => meetsShape(this.document, a, value));
      if (from < 0) continue;
      const others = alternatives.filter((_, i) => i !== from);
      // A broken value that one of the other alternatives may take would not be refused.
      const guard: Guard = (r) => others.every((o) => !meetsShape(this.document, o, valueAt(r, path)));
      this.walk(alternatives[from], path, [...guards, guard], depth + 1);
    }
    for (const member of Array.isArray(s.allOf) && !isObjectSchema(s) ? s.allOf : [])
      this.walk(member, path, guards, depth + 1);
    for (const leaf of leafBreaks(s, value))
      this.add(
        leaf.kind,
        `${where(path)} ${leaf.rule}`,
        path,
        leaf.values.map((v) => replaced(this.root, path, v)),
        guards,
      );
    if (isObject(value) && isObjectSchema(s)) this.object(s, value, path, guards, depth);
    if (Array.isArray(value)) this.array(s, value, path, guards, depth);
  }

  private object(s: Json, value: Record<string, unknown>, path: Path, guards: Guard[], depth: number): void {
    const shape = objectShape(this.document, s);
    const drop = (name: string) => [replaced(this.root, [...path, name], undefined, true)];
    for (const name of shape.required)
      if (Object.hasOwn(value, name))
        this.add(
          "required",
          `required member ${pointerOf([...path, name])} missing`,
          [...path, name],
          drop(name),
          guards,
        );
    for (const c of shape.conditions)
      for (const name of branchRequired(this.document, branchOf(this.document, c, value)))
        if (!shape.required.has(name) && Object.hasOwn(value, name))
          this.add(
            "country",
            `${pointerOf([...path, name])} missing, which a conditional (country) rule requires`,
            [...path, name],
            drop(name),
            guards,
          );
    const count = Object.keys(value).length;
    const extra =
      ["probe_undescribed", "probe_undescribed_2"].find((n) => !shape.properties.has(n)) ?? "probe_x";
    const added = [replaced(this.root, [...path, extra], true)];
    if (shape.closed && count + 1 <= shape.maxProperties)
      this.add("undescribed", `an undescribed member in ${where(path)}`, [...path, extra], added, guards);
    if (!shape.closed && count + 1 === shape.maxProperties + 1)
      this.add(
        "maxProperties",
        `${where(path)} with more members than its maxProperties (${shape.maxProperties})`,
        [...path, extra],
        added,
        guards,
      );
    const optional = Object.keys(value).filter((n) => !shape.required.has(n));
    if (shape.minProperties > 0 && count - optional.length < shape.minProperties) {
      const fewer = structuredClone(value);
      for (const name of optional.slice(0, count - shape.minProperties + 1)) delete fewer[name];
      this.add(
        "minProperties",
        `${where(path)} with fewer members than its minProperties (${shape.minProperties})`,
        path,
        [replaced(this.root, path, fewer)],
        guards,
      );
    }
    for (const [name, list] of shape.properties)
      if (Object.hasOwn(value, name)) this.walk(memberSchema(list), [...path, name], guards, depth + 1);
  }

  private array(s: Json, value: unknown[], path: Path, guards: Guard[], depth: number): void {
    const unique = s.uniqueItems === true;
    if (typeof s.minItems === "number" && s.minItems > 0 && value.length === s.minItems)
      this.add(
        "minItems",
        `${where(path)} with fewer items than its minItems (${s.minItems})`,
        path,
        [replaced(this.root, path, value.slice(0, -1))],
        guards,
      );
    if (typeof s.maxItems === "number" && value.length > 0 && !unique && s.maxItems < 1000) {
      const more = [...value, ...Array.from({ length: s.maxItems + 1 - value.length }, () => value[0])];
      this.add(
        "maxItems",
        `${where(path)} with more items than its maxItems (${s.maxItems})`,
        path,
        [replaced(this.root, path, more)],
        guards,
      );
    }
    if (unique && value.length > 0 && (typeof s.maxItems !== "number" || value.length < s.maxItems))
      this.add(
        "uniqueItems",
        `${where(path)} with an item twice`,
        path,
        [replaced(this.root, path, [...value, value[0]])],
        guards,
      );
    value.slice(0, 3).forEach((_, i) => this.walk(s.items ?? {}, [...path, i], guards, depth + 1));
  }
}

/** Whether a broken root breaks no conditional rule, or (for a `country` break) only the one at its pointer. */
function conditionsKept(document: Json, schema: Json, candidate: Candidate, root: unknown): boolean {
  const missing = missingConditional(document, schema, root);
  return candidate.kind === "country" ? missing.every((m) => m === candidate.pointer) : missing.length === 0;
}

/** FNV-1a of a salt and a key: the score rendezvous hashing picks by. */
function score(salt: number, key: string): number {
  let h = 0x811c9dc5 ^ salt;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The item of highest score: the same one for the same salt whatever other items come or go. */
const pick = <T>(items: T[], salt: number, key: (t: T) => string): T | undefined =>
  items.reduce<T | undefined>(
    (best, t) => (best === undefined || score(salt, key(t)) > score(salt, key(best)) ? t : best),
    undefined,
  );

/** Which break of a valid value to make: a kind, a member and a replacement, each by its own salt. */
export interface Choice {
  kind: number;
  member: number;
  replacement: number;
}

/**
 * The one-rule breaks of a valid value, one chosen: each kind as likely as another (a body of twenty
 * members has twenty type breaks), then a member of that kind. Chosen by rendezvous hashing, so that
 * when fast-check shrinks the valid value (members dropped) the choice stays on the same rule and
 * member while they remain: a failure shrinks to a small body that still breaks what it broke.
 */
export function brokenOf(
  document: Json,
  schema: Json,
  valid: unknown,
  choice: Choice,
): BrokenValue | undefined {
  const collector = new Collector(document, valid);
  collector.walk(schema, [], [], 0);
  const kept = collector.out
    .map((c) => ({ ...c, roots: c.roots.filter((root) => conditionsKept(document, schema, c, root)) }))
    .filter((c) => c.roots.length > 0);
  const kind = pick([...new Set(kept.map((c) => c.kind))], choice.kind, (k) => k);
  const chosen = pick(
    kept.filter((c) => c.kind === kind),
    choice.member,
    (c) => `${c.pointer} ${c.rule}`,
  );
  if (!chosen) return undefined;
  const value = chosen.roots[choice.replacement % chosen.roots.length];
  return { kind: chosen.kind, rule: chosen.rule, value, valid, pointer: chosen.pointer };
}

/** Broken values of a schema: a valid value, then one of its breaks; undefined when the schema states no rule. */
export function brokenArbitrary(
  document: Json,
  schema: Json,
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<BrokenValue> | undefined {
  const s = deref(document, schema);
  if (!isObject(s) || Object.keys(s).every((k) => !RULE_KEYWORDS.has(k))) return undefined;
  // A map, not a chain: fast-check shrinks the valid value while the choice's salts stay.
  const broken = fc
    .tuple(valid, fc.record({ kind: fc.nat(), member: fc.nat(), replacement: fc.nat({ max: 15 }) }))
    .map(([v, choice]) => brokenOf(document, schema, v, choice));
  return filteredOrNone(broken, (b): b is BrokenValue => b !== undefined) as
    fc.Arbitrary<BrokenValue> | undefined;
}

/** Keywords that state a rule a value can break. */
const RULE_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "enum",
  "const",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "items",
  "oneOf",
  "anyOf",
  "allOf",
  "if",
  "additionalProperties",
  "unevaluatedProperties",
  "minProperties",
  "maxProperties",
]);

/** The length of a string in code points (re-exported for the tests' boundary counts). */
export { codePoints };
