import { unescapeToken } from "../../src/contract/json-pointer.js";
import type { Json } from "../../src/contract/json.js";
// Derives the facts the client runtime needs about each operation from the bundled contract only.
// Nothing here knows a path prefix: the auth scheme comes from the security requirement.

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const MULTIPART = "multipart/form-data";

export interface FileConstraints {
  /** The multipart part that carries the file. */
  part: string;
  maxBytesExclusive: number;
  mediaTypes: string[];
  extensions: string[];
}

export interface OperationFacts {
  operationId: string;
  /** "v2": Svc-API-Key + Svc-Secret; "v4": Svc-API-Key + Svc-Date + Svc-Signature; "none": no security. */
  auth: "v2" | "v4" | "none";
  /** The header names the security requirement asks for, in the contract's order. */
  headers: string[];
  /** Media types of success responses that are files, not JSON. */
  binary: string[];
  multipart: boolean;
  files: FileConstraints[];
}

/** Resolve local `$ref`s until a node without one is reached; fail on anything else. */
function deref(document: Json, node: Json, where: string): Json {
  let current = node;
  for (let hops = 0; current?.$ref !== undefined; hops++) {
    const ref = String(current.$ref);
    if (!ref.startsWith("#/") || hops > 32) throw new Error(`${where}: cannot resolve $ref ${ref}`);
    current = ref
      .slice(2)
      .split("/")
      .map(unescapeToken)
      .reduce((n: Json, k) => n?.[k], document);
    if (current === undefined) throw new Error(`${where}: $ref ${ref} points at nothing`);
  }
  return current;
}

const isJson = (mediaType: string): boolean => /^application\/(?:[\w.+-]+\+)?json\b/i.test(mediaType);
const isText = (mediaType: string): boolean => /^text\//i.test(mediaType);

function authOf(document: Json, requirements: Json, where: string): Pick<OperationFacts, "auth" | "headers"> {
  if (!Array.isArray(requirements) || requirements.length === 0) return { auth: "none", headers: [] };
  if (requirements.length > 1) {
    throw new Error(
      `${where}: ${requirements.length} alternative security requirements; the client sends one`,
    );
  }
  const names = Object.keys(requirements[0]);
  const headers = names.map((name) => {
    const scheme = deref(document, document.components?.securitySchemes?.[name], `${where} security ${name}`);
    if (scheme?.type !== "apiKey" || scheme.in !== "header") {
      throw new Error(`${where}: security scheme ${name} is not an apiKey header`);
    }
    return String(scheme.name);
  });
  const auth = names.includes("SvcSignature") ? "v4" : names.includes("SvcSecret") ? "v2" : undefined;
  if (!auth) throw new Error(`${where}: security requirement [${names.join(", ")}] is neither v2 nor v4`);
  return { auth, headers };
}

function binaryOf(document: Json, responses: Json, where: string): string[] {
  const types = new Set<string>();
  for (const [status, response] of Object.entries<Json>(responses ?? {})) {
    if (!/^2(?:\d\d|XX)$/.test(status)) continue;
    const content = deref(document, response, `${where} response ${status}`).content ?? {};
    for (const mediaType of Object.keys(content)) {
      if (!isJson(mediaType) && !isText(mediaType)) types.add(mediaType);
    }
  }
  return [...types];
}

function filesOf(document: Json, requestBody: Json, where: string): FileConstraints[] {
  const schema = deref(document, requestBody?.content?.[MULTIPART]?.schema, `${where} multipart schema`);
  const out: FileConstraints[] = [];
  for (const [part, property] of Object.entries<Json>(schema?.properties ?? {})) {
    const limits = deref(document, property, `${where} part ${part}`)?.["x-file-constraints"];
    if (!limits) continue;
    const { maxBytesExclusive, mediaTypes, extensions } = limits;
    if (!Number.isInteger(maxBytesExclusive) || !Array.isArray(mediaTypes) || !Array.isArray(extensions)) {
      throw new Error(
        `${where} part ${part}: x-file-constraints needs maxBytesExclusive, mediaTypes, extensions`,
      );
    }
    out.push({ part, maxBytesExclusive, mediaTypes, extensions });
  }
  return out;
}

/** Every operation's facts, in the contract's path order, keyed "METHOD /path". */
export function operationFacts(document: Json): Record<string, OperationFacts> {
  const out: Record<string, OperationFacts> = {};
  for (const [path, rawItem] of Object.entries<Json>(document.paths ?? {})) {
    const item = deref(document, rawItem, path);
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.operationId) throw new Error(`${where}: no operationId`);
      const requestBody = op.requestBody
        ? deref(document, op.requestBody, `${where} requestBody`)
        : undefined;
      out[where] = {
        operationId: op.operationId,
        ...authOf(document, op.security ?? document.security, where),
        binary: binaryOf(document, op.responses, where),
        multipart: Boolean(requestBody?.content?.[MULTIPART]),
        files: filesOf(document, requestBody, where),
      };
    }
  }
  return out;
}

const CODE_MEMBERS = ["error_type", "error_code"];

/**
 * Every error code the contract names (an `enum` or `const` of `error_type` or `error_code` in any
 * schema), sorted: the codes the client may quote in its messages, as no request value can be one.
 */
export function errorCodes(document: Json): string[] {
  const codes = new Set<string>();
  const seen = new Set<object>();
  const visit = (node: Json, depth: number): void => {
    if (node === null || typeof node !== "object" || seen.has(node) || depth > 64) return;
    seen.add(node);
    const properties = node.properties;
    if (properties && typeof properties === "object" && !Array.isArray(properties)) {
      for (const member of CODE_MEMBERS) {
        const schema = properties[member];
        const values = [...(Array.isArray(schema?.enum) ? schema.enum : []), schema?.const];
        for (const value of values) if (typeof value === "string") codes.add(value);
      }
    }
    for (const child of Object.values<Json>(node)) visit(child, depth + 1);
  };
  visit(document, 0);
  return [...codes].sort();
}

/** The body of generated/operations.ts (without its header): what the client runtime reads of each operation. */
export function renderOperationFacts(facts: Record<string, OperationFacts>, codes: string[]): string {
  // Indexed by path, then method, as the runtime looks a call up. One line per operation, with the
  // operationId as a doc comment; empty facts are left out (the runtime reads them as absent).
  const byPath = new Map<string, string[]>();
  for (const [key, { operationId, auth, binary, multipart, files }] of Object.entries(facts)) {
    const [method = "", path = ""] = key.split(" ");
    const lean = {
      auth,
      ...(binary.length ? { binary } : {}),
      ...(multipart ? { multipart } : {}),
      ...(files.length ? { files } : {}),
    };
    const lines = byPath.get(path) ?? [];
    lines.push(`    /** ${operationId} */\n    ${method}: ${JSON.stringify(lean)},`);
    byPath.set(path, lines);
  }
  const entries = [...byPath].map(
    ([path, lines]) => `  ${JSON.stringify(path)}: {\n${lines.join("\n")}\n  },`,
  );
  return `/**
 * What the client runtime needs to know about each operation, by path template, then method.
 * Absent \`binary\` and \`files\`: none; absent \`multipart\`: false.
 */
export const operations = {
${entries.join("\n")}
} as const;

/** Every error code the contract names (error_type of shape A, error_code of shape B). */
export const errorCodes: readonly string[] = ${JSON.stringify(codes)};
`;
}
