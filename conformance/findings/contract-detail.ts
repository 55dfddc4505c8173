// The exact part of the contract a finding broke, below the operation part contract-location.ts gives:
// the schema member of a body, the parameter, the response of the recorded status, its header. Found
// by walking the contract itself with the finding's pointer, one token at a time, only through members
// the contract writes (`properties`, `items`, the branches of `allOf`/`oneOf`/`anyOf`): a token it does
// not write (a member the contract does not describe, a masked key) ends the walk where it stands.
import { isJsonEssence } from "../../src/contract/media-type.js";
import { escapeToken as token, unescapeToken } from "../../src/contract/json-pointer.js";
import type { ContractFile } from "./contract-location.js";
import { nodeAt, physicalPointer } from "./contract-source.js";
import type { EntryResult, Finding } from "./findings.js";

/** How deep the branches of `allOf`/`oneOf`/`anyOf` are searched for a member. */
const MAX_BRANCH_DEPTH = 4;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The node a pointer names, its `$ref`s followed. */
const resolved = (document: unknown, pointer: string): unknown =>
  nodeAt(document, physicalPointer(document, pointer));

/** The own keys of the object a pointer names, `$ref`s followed. */
const keysAt = (document: unknown, pointer: string): string[] => {
  const node = resolved(document, pointer);
  return isObject(node) ? Object.keys(node) : [];
};

/** The media type of a `content` map a body was judged by: the only one, else the only JSON one. */
function mediaOf(document: unknown, content: string): string | undefined {
  const types = keysAt(document, content);
  if (types.length === 1) return types[0];
  const json = types.filter((t) => isJsonEssence(t.split(";")[0]!.trim().toLowerCase()));
  return json.length === 1 ? json[0] : undefined;
}

/** The schema pointer of one instance member, or undefined when the schema at `at` does not write it. */
function step(document: unknown, at: string, key: string, depth = 0): string | undefined {
  const node = resolved(document, at);
  if (!isObject(node)) return undefined;
  const properties = node.properties;
  if (isObject(properties) && Object.hasOwn(properties, key)) return `${at}/properties/${token(key)}`;
  if (/^(0|[1-9]\d*)$/.test(key)) {
    const prefix = node.prefixItems;
    if (Array.isArray(prefix) && Number(key) < prefix.length) return `${at}/prefixItems/${key}`;
    if (isObject(node.items)) return `${at}/items`;
  }
  if (depth < MAX_BRANCH_DEPTH)
    for (const keyword of ["allOf", "oneOf", "anyOf"]) {
      const branches = node[keyword];
      if (!Array.isArray(branches)) continue;
      for (let i = 0; i < branches.length; i++) {
        const found = step(document, `${at}/${keyword}/${i}`, key, depth + 1);
        if (found) return found;
      }
    }
  if (isObject(node.additionalProperties)) return `${at}/additionalProperties`;
  return undefined;
}

/** The schema member an instance pointer names, as far as the schema writes it. */
export function schemaMember(document: unknown, schema: string, instance: string): string {
  let at = schema;
  for (const raw of instance.split("/").slice(1)) {
    const next = step(document, at, unescapeToken(raw));
    if (next === undefined) break;
    at = next;
  }
  return at;
}

/** A body's schema member: `content/<media>/schema/…`, or the content map when the media is not clear. */
function bodyMember(document: unknown, at: string, instance: string): string {
  const media = mediaOf(document, `${at}/content`);
  return media === undefined
    ? `${at}/content`
    : schemaMember(document, `${at}/content/${token(media)}/schema`, instance);
}

/** The parameter a `/in/name/…` pointer names, in the operation's list or its path item's. */
function parameter(document: unknown, operation: string, pointer: string): string | undefined {
  const [, where, raw, ...rest] = pointer.split("/");
  if (where === undefined || raw === undefined) return undefined;
  const name = unescapeToken(raw);
  const same = (p: unknown) =>
    isObject(p) &&
    p.in === where &&
    typeof p.name === "string" &&
    (where === "header" ? p.name.toLowerCase() === name.toLowerCase() : p.name === name);
  for (const list of [
    `${operation}/parameters`,
    `${operation.slice(0, operation.lastIndexOf("/"))}/parameters`,
  ]) {
    const items = resolved(document, list);
    if (!Array.isArray(items)) continue;
    const i = items.findIndex((_, index) => same(resolved(document, `${list}/${index}`)));
    if (i < 0) continue;
    // A parameter given by `content` rather than `schema`: the parameter itself.
    if (resolved(document, `${list}/${i}/schema`) === undefined) return `${list}/${i}`;
    return schemaMember(document, `${list}/${i}/schema`, rest.length ? `/${rest.join("/")}` : "");
  }
  return undefined;
}

/** The response a recorded status is documented by: its own, its range's, or the default. */
function responseKey(document: unknown, responses: string, status: number): string | undefined {
  const keys = keysAt(document, responses);
  const range = `${Math.floor(status / 100)}XX`;
  return (
    keys.find((k) => k === String(status)) ??
    keys.find((k) => k.toUpperCase() === range) ??
    keys.find((k) => k === "default")
  );
}

/** A response header a `/Name/…` pointer names, its name matched as HTTP matches names. */
function responseHeader(document: unknown, response: string, pointer: string): string | undefined {
  const [, raw, ...rest] = pointer.split("/");
  if (raw === undefined) return undefined;
  const name = unescapeToken(raw).toLowerCase();
  const key = keysAt(document, `${response}/headers`).find((k) => k.toLowerCase() === name);
  if (key === undefined) return undefined;
  const header = `${response}/headers/${token(key)}`;
  if (resolved(document, `${header}/schema`) === undefined) return header;
  return schemaMember(document, `${header}/schema`, rest.length ? `/${rest.join("/")}` : "");
}

/** The part of an HTTP operation's response a finding broke. */
function responsePart(document: unknown, operation: string, r: EntryResult, f: Finding): string | undefined {
  const key = r.status === undefined ? undefined : responseKey(document, `${operation}/responses`, r.status);
  if (key === undefined) return undefined;
  const response = `${operation}/responses/${token(key)}`;
  if (f.in === "response.body" && (f.check === "response_body_schema" || f.check === "error_shape"))
    return bodyMember(document, response, f.pointer);
  if (f.check === "response_headers") return responseHeader(document, response, f.pointer) ?? response;
  return response;
}

/**
 * The part below `pointer` (the operation or message part a finding's check judged) that the finding
 * broke; `pointer` itself when the contract does not write a nearer one.
 */
export function detailPointer(
  kind: ContractFile["kind"],
  document: unknown,
  pointer: string,
  r: EntryResult,
  f: Finding,
): string {
  if (kind === "asyncapi") {
    if (!/^\/channels\/[^/]+\/messages\/[^/]+$/.test(pointer)) return pointer;
    if (f.check === "payload_schema") return schemaMember(document, `${pointer}/payload`, f.pointer);
    if (f.check === "required_headers") return schemaMember(document, `${pointer}/headers`, f.pointer);
    return pointer;
  }
  // The operation the entry matched (the part may be its path item's parameters, or the root's security).
  if (r.operationId === null || !r.path.startsWith("/")) return pointer;
  const operation = `/paths/${token(r.path)}/${r.method.toLowerCase()}`;
  if (nodeAt(document, operation) === undefined) return pointer;
  switch (f.check) {
    case "request_body_schema":
      return f.in === "request.body" ? bodyMember(document, `${operation}/requestBody`, f.pointer) : pointer;
    case "request_parameters":
      return parameter(document, operation, f.pointer) ?? pointer;
    case "status_code_documented":
    case "response_content_type":
    case "response_body_schema":
    case "response_headers":
    case "error_shape":
      return responsePart(document, operation, r, f) ?? pointer;
    default:
      return pointer;
  }
}
