// Which oneOf/anyOf branch a value took, told cheaply: by what a branch pins at its top level (its
// types, its required members, the members it fixes with `const` or a one-value `enum`, and whether it
// admits members it does not name), its `$ref`s and `allOf` parts followed. The checks' own validators
// judge the value; this only says which branch it answers to, without compiling each branch with ajv
// (which costs more than the whole check of a corpus). A value that fits several branches takes each.
import { resolveRef } from "../../src/contract/resolve-ref.js";
import { jsonType } from "../checks/schema-errors.js";
import type { Json } from "../../src/contract/json.js";

/** What a value taking a branch must have at its top level. */
export interface BranchFacts {
  /** JSON types the branch admits (undefined: any). */
  types: Set<string> | undefined;
  required: string[];
  /** Members the branch pins to one value (primitive values only). */
  pinned: [name: string, value: unknown][];
  /** The value itself, when the branch pins it. */
  constant?: { value: unknown };
  /** The members the branch names, when it admits no others (undefined: open). */
  closedTo: Set<string> | undefined;
}

const MAX_PARTS = 16;

const isPrimitive = (v: unknown) => v === null || typeof v !== "object";

/** A schema's facts, its allOf parts merged in. */
export function branchFacts(document: Json, schema: Json): BranchFacts {
  const facts: BranchFacts = { types: undefined, required: [], pinned: [], closedTo: undefined };
  const visit = (raw: Json, depth: number) => {
    let s: Json;
    try {
      s = resolveRef(document, raw, "").node;
    } catch {
      return;
    }
    if (s === null || typeof s !== "object" || depth > MAX_PARTS) return;
    if (s.type !== undefined) {
      const types = new Set<string>([s.type].flat().filter((t): t is string => typeof t === "string"));
      facts.types = facts.types ? new Set([...facts.types].filter((t) => types.has(t))) : types;
    }
    if (s.const !== undefined && isPrimitive(s.const)) facts.constant = { value: s.const };
    if (Array.isArray(s.required))
      facts.required.push(...s.required.filter((r: unknown) => typeof r === "string"));
    const properties = s.properties && typeof s.properties === "object" ? s.properties : {};
    for (const name of Object.keys(properties)) {
      let p: Json;
      try {
        p = resolveRef(document, properties[name], "").node;
      } catch {
        continue;
      }
      const one =
        p?.const !== undefined
          ? p.const
          : Array.isArray(p?.enum) && p.enum.length === 1
            ? p.enum[0]
            : undefined;
      if (one !== undefined && isPrimitive(one)) facts.pinned.push([name, one]);
    }
    // Closed only when this very schema is, and has no parts that could name more.
    if ((s.additionalProperties === false || s.unevaluatedProperties === false) && !s.allOf && depth === 0)
      facts.closedTo = new Set(Object.keys(properties));
    for (const part of Array.isArray(s.allOf) ? s.allOf : []) visit(part, depth + 1);
  };
  visit(schema, 0);
  return facts;
}

/** Whether a value fits a branch's facts. */
export function fits(facts: BranchFacts, value: unknown): boolean {
  if (facts.constant && facts.constant.value !== value) return false;
  if (facts.types) {
    const type = jsonType(value);
    if (!facts.types.has(type) && !(type === "integer" && facts.types.has("number"))) return false;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return facts.required.length === 0 && facts.pinned.length === 0;
  for (const name of facts.required) if (!Object.hasOwn(value, name)) return false;
  for (const [name, pinned] of facts.pinned)
    if (Object.hasOwn(value, name) && (value as Record<string, unknown>)[name] !== pinned) return false;
  if (facts.closedTo) for (const key of Object.keys(value)) if (!facts.closedTo.has(key)) return false;
  return true;
}
