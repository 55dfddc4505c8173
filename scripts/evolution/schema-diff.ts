import type { Json } from "../../src/contract/json.js";
export type { Json } from "../../src/contract/json.js";

// Compares two JSON Schemas (OpenAPI 3.1 / AsyncAPI schema objects in bundled documents) and says,
// for each difference, whether the set of valid values got narrower, wider, or both. Who is hurt
// depends on who reads: a narrower request breaks the client that writes it; a wider response or
// payload breaks the client or receiver that reads it.

/** Narrowed: values valid before are refused now. Widened: values refused before may come now. */
export type Effect = "narrowed" | "widened" | "both" | "neutral";

/** One difference between two schemas, at a member path. */
export interface SchemaChange {
  /** Member path in words: `verification.status`, `checks[].type`; "" for the schema itself. */
  member: string;
  effect: Effect;
  /** What changed, in words, completing "member …". */
  what: string;
  /** Special cases the direction rules treat apart. */
  kind?: "member-added" | "member-removed" | "required-added" | "required-removed";
}

/** Resolves `#/…` references inside one bundled document. */
export function resolver(document: Json): (schema: Json) => { schema: Json; ref?: string } {
  return (schema) => {
    let ref: string | undefined;
    // A chain of references ends within a few hops; the bound guards against a cycle of aliases.
    for (let hops = 0; hops < 32 && schema && typeof schema.$ref === "string"; hops++) {
      ref = schema.$ref as string;
      if (!ref.startsWith("#/")) return { schema: {}, ref };
      let node: Json = document;
      for (const token of ref.slice(2).split("/"))
        node = node?.[token.replace(/~1/g, "/").replace(/~0/g, "~")];
      schema = node ?? {};
    }
    return { schema: schema ?? {}, ref };
  };
}

const MAX_DEPTH = 48;

/** The types a schema allows, with `integer` implied by `number`; undefined when any type goes. */
function typesOf(s: Json): Set<string> | undefined {
  if (s.type === undefined) {
    if (s.const !== undefined) return new Set([s.const === null ? "null" : typeof s.const]);
    return undefined;
  }
  return new Set(Array.isArray(s.type) ? s.type : [s.type]);
}

const allows = (types: Set<string>, t: string) => types.has(t) || (t === "integer" && types.has("number"));

/** The values a schema lists (enum or const); undefined when it lists none. */
function valuesOf(s: Json): Json[] | undefined {
  if (Array.isArray(s.enum)) return s.enum;
  if (s.const !== undefined) return [s.const];
  return undefined;
}

/** Flatten allOf into one schema: properties and required merged, the rest kept from the first to say it. */
function flatten(s: Json, resolve: ReturnType<typeof resolver>, depth = 0): Json {
  if (!Array.isArray(s.allOf) || depth > 8) return s;
  const merged: Json = { ...s, properties: { ...(s.properties ?? {}) }, required: [...(s.required ?? [])] };
  delete merged.allOf;
  for (const part of s.allOf) {
    const flat = flatten(resolve(part).schema, resolve, depth + 1);
    for (const [k, v] of Object.entries(flat)) {
      if (k === "properties") Object.assign(merged.properties, v);
      else if (k === "required") merged.required.push(...(v as string[]));
      else if (!(k in merged)) merged[k] = v;
    }
  }
  if (Object.keys(merged.properties).length === 0) delete merged.properties;
  if (merged.required.length === 0) delete merged.required;
  return merged;
}

const join = (member: string, name: string) => (member ? `${member}.${name}` : name);
const show = (v: Json) => JSON.stringify(v);

/** Bounds where a bigger number allows more values, and where it allows fewer. */
const UPPER = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"];
const LOWER = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"];

type Resolve = ReturnType<typeof resolver>;

/** One comparison under way: where its changes go, and how it descends into a pair of subschemas. */
interface Walk {
  add(member: string, effect: Effect, what: string, kind?: SchemaChange["kind"]): void;
  walk(o: Json, n: Json, member: string, depth: number): void;
  resolveOld: Resolve;
  resolveNew: Resolve;
}

/** Every difference between two schemas, walking properties, items and branches. */
export function diffSchemas(
  oldSchema: Json,
  newSchema: Json,
  resolveOld: Resolve,
  resolveNew: Resolve,
): SchemaChange[] {
  const changes: SchemaChange[] = [];
  // Pairs of references already being compared up the walk: a recursive schema stops there.
  const seen = new Set<string>();
  const w: Walk = {
    resolveOld,
    resolveNew,
    add: (member, effect, what, kind) => changes.push({ member, effect, what, ...(kind ? { kind } : {}) }),
    walk: (o0, n0, member, depth) => {
      if (depth > MAX_DEPTH) return;
      const o1 = resolveOld(o0);
      const n1 = resolveNew(n0);
      const pair = o1.ref && n1.ref ? `${o1.ref} ${n1.ref}` : undefined;
      if (pair && seen.has(pair)) return;
      if (pair) seen.add(pair);
      try {
        compare(w, flatten(o1.schema, resolveOld), flatten(n1.schema, resolveNew), member, depth);
      } finally {
        if (pair) seen.delete(pair);
      }
    },
  };
  w.walk(oldSchema, newSchema, "", 0);
  return changes;
}

/** The differences of two flattened schemas at one member, in the order a reviewer reads them. */
function compare(w: Walk, o: Json, n: Json, member: string, depth: number): void {
  // Alternatives: a schema without any is one alternative, so that wrapping a schema in
  // oneOf [it, null] reads as "may now be null", not as a new schema.
  if (branchesOf(o) || branchesOf(n)) return compareBranches(w, o, n, member, depth);
  compareTypes(w, o, n, member);
  compareValues(w, o, n, member);
  compareBounds(w, o, n, member);
  compareMembers(w, o, n, member, depth);
  // Items and free-form members.
  if (o.items && n.items) w.walk(o.items, n.items, `${member}[]`, depth + 1);
  const oa = o.additionalProperties;
  const na = n.additionalProperties;
  if (oa && na && typeof oa === "object" && typeof na === "object") w.walk(oa, na, `${member}.*`, depth + 1);
}

/** Alternatives (oneOf, anyOf) paired old to new; an unpaired one was added or removed. */
function compareBranches(w: Walk, o: Json, n: Json, member: string, depth: number): void {
  const ob = branchesOf(o) ?? [o];
  const nb = branchesOf(n) ?? [n];
  const oKeys = ob.map((b) => branchKey(b, w.resolveOld));
  const nKeys = nb.map((b) => branchKey(b, w.resolveNew));
  const matched = new Set<number>();
  for (const [i, b] of nb.entries()) {
    // Same referenced schema first, then the same type, then the same position.
    let j = oKeys.findIndex((k, x) => !matched.has(x) && k.ref !== undefined && k.ref === nKeys[i]!.ref);
    if (j < 0) j = oKeys.findIndex((k, x) => !matched.has(x) && k.type === nKeys[i]!.type);
    if (j < 0 && ob.length === nb.length && !matched.has(i)) j = i;
    if (j < 0) w.add(member, "widened", `may now be ${branchLabel(b, w.resolveNew)}`);
    else {
      matched.add(j);
      w.walk(ob[j], b, member, depth + 1);
    }
  }
  for (const [j, b] of ob.entries())
    if (!matched.has(j)) w.add(member, "narrowed", `may no longer be ${branchLabel(b, w.resolveOld)}`);
}

/** The types allowed. */
function compareTypes(w: Walk, o: Json, n: Json, member: string): void {
  const ot = typesOf(o);
  const nt = typesOf(n);
  if (ot && !nt) w.add(member, "widened", `may now be of any type (was ${[...ot].join(" or ")})`);
  else if (!ot && nt) w.add(member, "narrowed", `must now be ${[...nt].join(" or ")}`);
  else if (ot && nt) {
    const added = [...nt].filter((t) => !allows(ot, t));
    const removed = [...ot].filter((t) => !allows(nt, t));
    if (added.length) w.add(member, "widened", `may now be ${added.join(" or ")}`);
    if (removed.length) w.add(member, "narrowed", `may no longer be ${removed.join(" or ")}`);
  }
}

/** The values listed (enum, const). */
function compareValues(w: Walk, o: Json, n: Json, member: string): void {
  const ov = valuesOf(o);
  const nv = valuesOf(n);
  if (ov && !nv) w.add(member, "widened", `is no longer limited to ${ov.map(show).join(", ")}`);
  else if (!ov && nv) w.add(member, "narrowed", `is now limited to ${nv.map(show).join(", ")}`);
  else if (ov && nv) {
    const oldSet = new Set(ov.map(show));
    const newSet = new Set(nv.map(show));
    const added = [...newSet].filter((v) => !oldSet.has(v));
    const removed = [...oldSet].filter((v) => !newSet.has(v));
    if (added.length)
      w.add(member, "widened", `has new value${added.length > 1 ? "s" : ""} ${added.join(", ")}`);
    if (removed.length)
      w.add(member, "narrowed", `lost value${removed.length > 1 ? "s" : ""} ${removed.join(", ")}`);
  }
}

/** Bounds, patterns and formats. */
function compareBounds(w: Walk, o: Json, n: Json, member: string): void {
  for (const key of [...UPPER, ...LOWER]) {
    const a = o[key];
    const b = n[key];
    if (a === b) continue;
    const upper = UPPER.includes(key);
    if (a === undefined) w.add(member, "narrowed", `gained ${key} ${b}`);
    else if (b === undefined) w.add(member, "widened", `lost ${key} ${a}`);
    else w.add(member, b < a === upper ? "narrowed" : "widened", `${key} changed from ${a} to ${b}`);
  }
  for (const key of ["pattern", "format"]) {
    if (o[key] === n[key]) continue;
    if (o[key] === undefined) w.add(member, "narrowed", `gained ${key} ${show(n[key])}`);
    else if (n[key] === undefined) w.add(member, "widened", `lost ${key} ${show(o[key])}`);
    else w.add(member, "both", `${key} changed from ${show(o[key])} to ${show(n[key])}`);
  }
}

const closed = (s: Json) => s.additionalProperties === false || s.unevaluatedProperties === false;

/** Named members: added, removed, required or not, and then each kept member walked. */
function compareMembers(w: Walk, o: Json, n: Json, member: string, depth: number): void {
  const op: Json = o.properties ?? {};
  const np: Json = n.properties ?? {};
  const oreq = new Set<string>(o.required ?? []);
  const nreq = new Set<string>(n.required ?? []);
  for (const name of Object.keys(np)) {
    if (Object.hasOwn(op, name)) continue;
    const required = nreq.has(name);
    w.add(
      join(member, name),
      required ? "narrowed" : closed(o) ? "widened" : "neutral",
      required ? "is new and required" : "is new and optional",
      required ? "required-added" : "member-added",
    );
  }
  for (const name of Object.keys(op)) {
    if (Object.hasOwn(np, name)) continue;
    w.add(join(member, name), closed(n) ? "narrowed" : "widened", "was removed", "member-removed");
  }
  for (const name of nreq)
    if (!oreq.has(name) && Object.hasOwn(op, name))
      w.add(join(member, name), "narrowed", "is now required", "required-added");
  for (const name of oreq)
    if (!nreq.has(name) && Object.hasOwn(np, name))
      w.add(join(member, name), "widened", "is no longer required", "required-removed");
  if (!closed(o) && closed(n))
    w.add(member, "narrowed", "no longer allows members the contract does not name");
  if (closed(o) && !closed(n)) w.add(member, "widened", "now allows members the contract does not name");
  for (const name of Object.keys(op))
    if (Object.hasOwn(np, name)) w.walk(op[name], np[name], join(member, name), depth + 1);
}

const branchesOf = (s: Json): Json[] | undefined =>
  Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;

/** What identifies an alternative: the schema it references, and its type(s). */
function branchKey(b: Json, resolve: ReturnType<typeof resolver>): { ref?: string; type: string } {
  const { schema, ref } = resolve(b);
  const types = typesOf(schema);
  return { ...(ref ? { ref } : {}), type: types ? [...types].sort().join("|") : "any" };
}

/** An alternative in words: `null`, `ValidationErrors`, `an object`. */
function branchLabel(b: Json, resolve: ReturnType<typeof resolver>): string {
  const { schema, ref } = resolve(b);
  if (ref) return `\`${ref.split("/").pop()}\``;
  const values = valuesOf(schema);
  if (values) return values.map(show).join(" or ");
  const types = typesOf(schema);
  return types ? [...types].join(" or ") : "any value";
}
