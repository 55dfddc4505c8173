import type { Json } from "../../src/contract/json.js";
import { isJsonEssence } from "../../src/contract/media-type.js";
import { type ContractOperation, contractOperations } from "../../src/contract/operations.js";
import { resolveRef, UnresolvedRefError } from "../../src/contract/resolve-ref.js";
// Derives the facts the client runtime needs about each operation from the bundled contract only.
// Nothing here knows a path prefix: the auth scheme comes from the security requirement.

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

/** A `$ref` that cannot be followed, as code generation names it. */
function refFailure(error: UnresolvedRefError, where: string | undefined): Error {
  const at = error.where ?? where ?? "contract";
  return new Error(
    error.reason === "dangling"
      ? `${at}: $ref ${error.ref} points at nothing`
      : `${at}: cannot resolve $ref ${error.ref}`,
  );
}

/** Resolve local `$ref`s of a schema; fail clearly on anything else. */
function deref(document: Json, node: Json, where: string): Json {
  try {
    return resolveRef(document, node, "").node;
  } catch (error) {
    throw error instanceof UnresolvedRefError ? refFailure(error, where) : error;
  }
}

/** The essence of a media type key (`application/json; charset=utf-8` → `application/json`). */
const essenceOf = (mediaType: string): string => (mediaType.split(";")[0] ?? "").trim().toLowerCase();
const isText = (mediaType: string): boolean => /^text\//i.test(mediaType);

function authOf(op: ContractOperation): Pick<OperationFacts, "auth" | "headers"> {
  const { security: alternatives, where } = op;
  const [requirement] = alternatives;
  if (requirement === undefined) return { auth: "none", headers: [] };
  if (alternatives.length > 1) {
    throw new Error(
      `${where}: ${alternatives.length} alternative security requirements; the client sends one`,
    );
  }
  const headers = requirement.map(({ name, scheme }) => {
    if (scheme?.type !== "apiKey" || scheme.in !== "header") {
      throw new Error(`${where}: security scheme ${name} is not an apiKey header`);
    }
    return String(scheme.name);
  });
  const names = requirement.map((s) => s.name);
  const auth = names.includes("SvcSignature") ? "v4" : names.includes("SvcSecret") ? "v2" : undefined;
  if (!auth) throw new Error(`${where}: security requirement [${names.join(", ")}] is neither v2 nor v4`);
  return { auth, headers };
}

function binaryOf(op: ContractOperation): string[] {
  const types = new Set<string>();
  for (const response of op.responses) {
    if (!/^2(?:\d\d|XX)$/.test(response.key)) continue;
    for (const { mediaType } of response.content) {
      if (!isJsonEssence(essenceOf(mediaType)) && !isText(mediaType)) types.add(mediaType);
    }
  }
  return [...types];
}

function filesOf(document: Json, op: ContractOperation): FileConstraints[] {
  const { where } = op;
  const media = op.requestBody?.content.find((m) => m.mediaType === MULTIPART);
  const schema = deref(document, media?.schema, `${where} multipart schema`);
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

/** The operation model of a document, with a broken `$ref` named as code generation names it. */
function operationsOf(document: Json): ContractOperation[] {
  try {
    return contractOperations(document);
  } catch (error) {
    throw error instanceof UnresolvedRefError ? refFailure(error, undefined) : error;
  }
}

/** Every operation's facts, in the contract's path order, keyed "METHOD /path". */
export function operationFacts(document: Json): Record<string, OperationFacts> {
  const out: Record<string, OperationFacts> = {};
  for (const op of operationsOf(document)) {
    if (!op.operationId) throw new Error(`${op.where}: no operationId`);
    out[op.where] = {
      operationId: op.operationId,
      ...authOf(op),
      binary: binaryOf(op),
      multipart: op.requestBody?.content.some((m) => m.mediaType === MULTIPART) ?? false,
      files: filesOf(document, op),
    };
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
${renderFilePaths(facts)}`;
}

/**
 * The path lists the client's download and upload types index, by lower-case method. Written out
 * here because a mapped type over the facts, filtered in the consumer's compiler, cost each call
 * some 90,000 types (bench/client-types.ts).
 */
function renderFilePaths(facts: Record<string, OperationFacts>): string {
  const list = (pick: (f: OperationFacts) => boolean) => {
    const byMethod = new Map<string, string[]>();
    for (const [key, fact] of Object.entries(facts)) {
      if (!pick(fact)) continue;
      const [method = "", path = ""] = key.split(" ");
      const name = method.toLowerCase();
      byMethod.set(name, [...(byMethod.get(name) ?? []), JSON.stringify(path)]);
    }
    const members = [...byMethod].map(([method, paths]) => `\n  ${method}: ${paths.join(" | ")};`);
    return `{${members.join("")}${members.length ? "\n" : ""}}`;
  };
  return `
/** By method, the paths whose operation answers with a file (non-empty \`binary\`): what \`download()\` takes. */
export type DownloadPaths = ${list((f) => f.binary.length > 0)};

/** By method, the paths whose operation takes a file with constraints (non-empty \`files\`): what \`upload()\` takes. */
export type UploadPaths = ${list((f) => f.files.length > 0)};
`;
}
