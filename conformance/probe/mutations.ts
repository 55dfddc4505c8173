// Negative requests: an example with one rule of the contract broken. Each mutation says which
// rule; the deployment must refuse every one with a documented 4xx in its error shape.
import { resolve } from "./contract-operations.js";
import { type BodyBytes, formBody, markReferences, PROBE_PDF } from "./request-body.js";
import type { Json } from "../../src/contract/json.js";

/** A broken request body and the rule it breaks. */
export interface Mutation {
  /** The rule broken, in words (`required member /individual/first_name missing`). */
  rule: string;
  body: BodyBytes;
}

/** How many mutations of each kind one operation gets (a choice among candidates, by the seed). */
const PER_KIND = 1;
/** Object levels walked below the body's root. */
const MAX_DEPTH = 2;

type Random = () => number;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The properties and required names of an object schema, its allOf members merged. */
function objectShape(
  document: Json,
  schema: Json,
  depth = 0,
): { properties: Map<string, Json>; required: Set<string>; closed: boolean; conditions: Json[] } {
  const properties = new Map<string, Json>();
  const required = new Set<string>();
  const conditions: Json[] = [];
  const s: Json = resolve(document, schema);
  if (s === null || typeof s !== "object" || Array.isArray(s) || depth > 8)
    return { properties, required, closed: false, conditions };
  let closed = s.additionalProperties === false || s.unevaluatedProperties === false;
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) properties.set(k, resolve(document, v));
  for (const r of s.required ?? []) required.add(String(r));
  if (s.if && s.then) conditions.push(s);
  for (const member of s.allOf ?? []) {
    const inner = objectShape(document, member, depth + 1);
    for (const [k, v] of inner.properties)
      if (!properties.has(k) || v !== true) properties.set(k, properties.get(k) ?? v);
    for (const r of inner.required) required.add(r);
    conditions.push(...inner.conditions);
    closed ||= inner.closed;
  }
  return { properties, required, closed, conditions };
}

/** Whether a value satisfies an `if` schema, for the keywords conditions use: required, properties, enum, const. */
function satisfies(document: Json, schema: Json, value: unknown, depth = 0): boolean {
  const s = resolve(document, schema);
  if (s === true || depth > 8) return true;
  if (!isObject(s)) return false;
  if (s.const !== undefined && value !== s.const) return false;
  if (Array.isArray(s.enum) && !s.enum.includes(value)) return false;
  if (Array.isArray(s.required) && (!isObject(value) || s.required.some((r: string) => !(r in value))))
    return false;
  if (isObject(s.properties) && isObject(value))
    for (const [k, sub] of Object.entries<Json>(s.properties))
      if (Object.hasOwn(value, k) && !satisfies(document, sub, value[k], depth + 1)) return false;
  return true;
}

/** A string the pattern refuses, or undefined when none of the tries is refused. */
function offPattern(pattern: string): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
  return ["!", "probe value with spaces", "", "0", "a".repeat(300), "--"].find((t) => !re.test(t));
}

/** A value of another JSON type than the schema's. */
function wrongType(schema: Json): unknown {
  const types: string[] = Array.isArray(schema?.type) ? schema.type : schema?.type ? [schema.type] : [];
  if (types.length === 0) return undefined;
  if (!types.includes("number") && !types.includes("integer")) return 12345;
  if (!types.includes("string")) return "probe-not-a-number";
  if (!types.includes("boolean")) return true;
  return undefined;
}

interface Candidate {
  kind: string;
  rule: string;
  apply: (root: Record<string, unknown>) => void;
}

const pointer = (path: string[]) => `/${path.join("/")}`;

/** The member at `path` of a (copied) example. */
function parentAt(root: Record<string, unknown>, path: string[]): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) node = isObject(node) ? node[key] : undefined;
  return isObject(node) ? node : undefined;
}

function collect(
  document: Json,
  schema: Json,
  value: unknown,
  path: string[],
  out: Candidate[],
  depth: number,
): void {
  if (!isObject(value) || depth > MAX_DEPTH) return;
  const shape = objectShape(document, schema);
  const set = (p: string[], v: unknown) => (root: Record<string, unknown>) => {
    const parent = parentAt(root, p);
    if (parent) parent[p[p.length - 1]!] = v;
  };
  const drop = (p: string[]) => (root: Record<string, unknown>) => {
    const parent = parentAt(root, p);
    if (parent) delete parent[p[p.length - 1]!];
  };
  for (const name of shape.required)
    if (Object.hasOwn(value, name))
      out.push({
        kind: "required",
        rule: `required member ${pointer([...path, name])} missing`,
        apply: drop([...path, name]),
      });
  for (const [name, raw] of shape.properties) {
    if (!Object.hasOwn(value, name)) continue;
    const p = [...path, name];
    const prop = resolve(document, raw);
    if (!isObject(prop)) continue;
    const wrong = wrongType(prop);
    if (wrong !== undefined)
      out.push({ kind: "type", rule: `${pointer(p)} of the wrong type`, apply: set(p, wrong) });
    if (typeof prop.maxLength === "number" && prop.maxLength < 100_000)
      out.push({
        kind: "maxLength",
        rule: `${pointer(p)} longer than its maxLength`,
        apply: set(p, "a".repeat(prop.maxLength + 1)),
      });
    if (typeof prop.pattern === "string") {
      const off = offPattern(prop.pattern);
      if (off !== undefined)
        out.push({ kind: "pattern", rule: `${pointer(p)} off its pattern`, apply: set(p, off) });
    }
    if (Array.isArray(prop.enum) && !prop.enum.includes("probe-not-in-enum"))
      out.push({ kind: "enum", rule: `${pointer(p)} outside its enum`, apply: set(p, "probe-not-in-enum") });
    collect(document, prop, value[name], p, out, depth + 1);
  }
  if (shape.closed)
    out.push({
      kind: "undescribed",
      rule: `an undescribed member in ${pointer(path)}`,
      apply: (root) => {
        const target = path.length === 0 ? root : (parentAt(root, [...path, ""]) ?? root);
        target.probe_undescribed_member = true;
      },
    });
  // A conditional rule (a country's required members): the example meets the `if`; drop one `then` requires.
  for (const condition of shape.conditions) {
    if (!satisfies(document, condition.if, value)) continue;
    const then = resolve(document, condition.then);
    for (const name of then?.required ?? [])
      if (Object.hasOwn(value, name)) {
        out.push({
          kind: "country",
          rule: `${pointer([...path, String(name)])} missing, which a country rule requires`,
          apply: drop([...path, String(name)]),
        });
        break;
      }
  }
}

/** Pick up to `n` of a list by the seed. */
function pick<T>(list: T[], n: number, random: Random): T[] {
  const copy = [...list];
  const out: T[] = [];
  while (copy.length > 0 && out.length < n) out.push(copy.splice(Math.floor(random() * copy.length), 1)[0]!);
  return out;
}

/** The negative bodies of a JSON example: one per kind of rule, chosen by the seed, plus the body-wide ones. */
export function jsonMutations(
  document: Json,
  schema: Json,
  example: unknown,
  marker: string,
  random: Random,
  mediaType: string,
): Mutation[] {
  const base = markReferences(example, marker);
  const candidates: Candidate[] = [];
  collect(document, schema, base, [], candidates, 0);
  const byKind = new Map<string, Candidate[]>();
  for (const c of candidates) byKind.set(c.kind, [...(byKind.get(c.kind) ?? []), c]);
  const out: Mutation[] = [];
  for (const [, list] of byKind)
    for (const c of pick(list, PER_KIND, random)) {
      const copy = structuredClone(base) as Record<string, unknown>;
      c.apply(copy);
      out.push({ rule: c.rule, body: { bytes: Buffer.from(JSON.stringify(copy)), contentType: mediaType } });
    }
  const text = JSON.stringify(base);
  out.push({
    rule: "the wrong media type (text/plain)",
    body: { bytes: Buffer.from(text), contentType: "text/plain" },
  });
  out.push({
    rule: "invalid JSON (the body cut short)",
    body: { bytes: Buffer.from(text.slice(0, -1)), contentType: mediaType },
  });
  // Bytes that are not UTF-8 inside the first string value.
  const at = text.indexOf(':"');
  const cut = at >= 0 ? at + 2 : 1;
  out.push({
    rule: "invalid UTF-8",
    body: {
      bytes: Buffer.concat([
        Buffer.from(text.slice(0, cut)),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(text.slice(cut)),
      ]),
      contentType: mediaType,
    },
  });
  if (!isObject(base)) return out;
  out.push({
    rule: "a JSON array where the contract wants an object",
    body: { bytes: Buffer.from("[]"), contentType: mediaType },
  });
  return out;
}

/** The negative bodies of a multipart upload. */
export function formMutations(part: string): Mutation[] {
  return [
    { rule: `the required part ${JSON.stringify(part)} missing`, body: formBody(`${part}_other`) },
    {
      rule: "a file extension the contract does not accept",
      body: formBody(part, { name: "probe.exe", type: "application/octet-stream", bytes: PROBE_PDF }),
    },
    {
      rule: "the wrong media type (application/json)",
      body: { bytes: Buffer.from("{}"), contentType: "application/json" },
    },
  ];
}
