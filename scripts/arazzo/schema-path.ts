// Whether a JSON pointer into a message (a response body, a request body, an event payload) names a
// member its schema describes, and which literal values that member allows.
import { unescapeToken } from "../../src/contract/json-pointer.js";
import { type Json, resolveRef } from "../lib/json-ref.js";

/** Schemas are nested far less deep than this; deeper is a cycle. */
const MAX_DEPTH = 64;

/** A schema describing a member, and whether it was reached through oneOf/anyOf (one alternative). */
export interface MemberSchema {
  schema: Json;
  alternative: boolean;
}

/** The schemas that describe the member at `tokens` under `schema` (none when no branch has it). */
function schemasAt(
  document: Json,
  schema: Json,
  tokens: string[],
  depth: number,
  alternative: boolean,
): MemberSchema[] {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== "object") return [];
  const s = resolveRef(document, schema);
  if (tokens.length === 0) return [{ schema: s, alternative }];
  const [token, ...rest] = tokens as [string, ...string[]];
  const out = [
    ...(Array.isArray(s?.allOf) ? s.allOf : []).flatMap((b: Json) =>
      schemasAt(document, b, tokens, depth + 1, alternative),
    ),
    ...[...(Array.isArray(s?.oneOf) ? s.oneOf : []), ...(Array.isArray(s?.anyOf) ? s.anyOf : [])].flatMap(
      (b: Json) => schemasAt(document, b, tokens, depth + 1, true),
    ),
  ];
  const properties = s?.properties;
  if (properties && typeof properties === "object" && Object.hasOwn(properties, token))
    out.push(...schemasAt(document, properties[token], rest, depth + 1, alternative));
  if (/^(0|[1-9]\d*)$/.test(token)) {
    const prefix = Array.isArray(s?.prefixItems) ? s.prefixItems[Number(token)] : undefined;
    const items = prefix ?? (s?.items && typeof s.items === "object" ? s.items : undefined);
    if (items) out.push(...schemasAt(document, items, rest, depth + 1, alternative));
  }
  return out;
}

/** The reference tokens of a JSON pointer ("/a/0/b"); the empty pointer is the whole body. */
export const pointerTokens = (pointer: string): string[] =>
  pointer === "" ? [] : pointer.slice(1).split("/").map(unescapeToken);

/** Whether a JSON value has a member at a pointer (own members only: "__proto__" is never one). */
export function hasMember(value: unknown, pointer: string): boolean {
  let at: unknown = value;
  for (const token of pointerTokens(pointer)) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, token)) return false;
    at = (at as Record<string, unknown>)[token];
  }
  return true;
}

/** The schemas describing the member a JSON pointer names, [] when the schema has no such member. */
export function schemasAtPointer(document: Json, schema: Json, pointer: string): MemberSchema[] {
  return schemasAt(document, schema, pointerTokens(pointer), 0, false);
}

/**
 * Whether a member can hold a literal: no schema that always applies lists values without it, and
 * when only alternatives describe it, one of them allows it.
 */
export function mayHold(document: Json, members: MemberSchema[], literal: unknown): boolean {
  const allows = (m: MemberSchema) => {
    const values = allowedValues(document, m.schema);
    return values === undefined || values.includes(literal);
  };
  const always = members.filter((m) => !m.alternative);
  if (always.some((m) => !allows(m))) return false;
  return always.length > 0 || members.length === 0 || members.some(allows);
}

/** The values a schema allows when it lists them (const, enum, in it or its branches); undefined when open. */
export function allowedValues(document: Json, schema: Json, depth = 0): unknown[] | undefined {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== "object") return undefined;
  const s = resolveRef(document, schema);
  const own = "const" in s ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined;
  if (own) return own;
  // allOf narrows: any listed branch limits the whole; oneOf/anyOf only when every branch lists.
  for (const b of Array.isArray(s.allOf) ? s.allOf : []) {
    const values = allowedValues(document, b, depth + 1);
    if (values) return values;
  }
  const alternatives = [
    ...(Array.isArray(s.oneOf) ? s.oneOf : []),
    ...(Array.isArray(s.anyOf) ? s.anyOf : []),
  ];
  if (alternatives.length === 0) return undefined;
  const lists = alternatives.map((b: Json) => allowedValues(document, b, depth + 1));
  return lists.every((l) => l !== undefined) ? lists.flat() : undefined;
}
