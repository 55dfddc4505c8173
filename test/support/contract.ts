import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import { fromRoot } from "../../scripts/lib/paths.js";
import { AjvCompiler } from "../../src/contract/schema-validator.js";
import type { Json } from "../../src/contract/json.js";
export type { Json } from "../../src/contract/json.js";

import { HTTP_METHODS } from "../../src/contract/http-methods.js";
export { HTTP_METHODS };

/** The committed OpenAPI bundle. */
export function loadOpenApi(): Json {
  return JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));
}

/** The committed AsyncAPI bundle. */
export function loadAsyncApi(): Json {
  return JSON.parse(readFileSync(fromRoot("generated/asyncapi.json"), "utf8"));
}

/** The interface document the contract is written from (x-gap quotes must be its exact words). */
export function loadInterfaceDocument(): string {
  return readFileSync(fromRoot("docs/interface-document.md"), "utf8");
}

/** Escape one JSON pointer token. */
export const pointerToken = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Text with every run of white space made one space, for comparing quotes across line breaks. */
export const normaliseSpace = (s: string): string => s.replace(/\s+/g, " ").trim();

/** Every value under a key that `match` accepts, anywhere in a document, with its JSON pointer. */
export function findKeys(
  node: Json,
  match: (key: string) => boolean,
  pointer = "",
): { pointer: string; value: Json }[] {
  if (node === null || typeof node !== "object") return [];
  return Object.entries<Json>(node).flatMap(([k, v]) => {
    const at = `${pointer}/${pointerToken(k)}`;
    return [...(match(k) ? [{ pointer: at, value: v }] : []), ...findKeys(v, match, at)];
  });
}

/** Every x-gap mark of a document (a mark may be one gap or a list), each with its own pointer. */
export const gapMarks = (document: Json): { pointer: string; gap: Json }[] =>
  findKeys(document, (k) => k === "x-gap").flatMap(({ pointer, value }) =>
    (Array.isArray(value) ? value : [value]).map((gap: Json, i: number) => ({
      pointer: `${pointer}/${i}`,
      gap,
    })),
  );

/** The names of the x- extensions a document uses. */
export const usedExtensions = (document: Json): Set<string> =>
  new Set(findKeys(document, (k) => k.startsWith("x-")).map((f) => f.pointer.split("/").pop() as string));

/** The JSON request examples of an operation (fresh copies), or undefined when it takes no JSON body. */
export function jsonRequestExamples(document: Json, op: Json): Json[] | undefined {
  const media = deref(document, op.requestBody)?.content?.["application/json"];
  if (!media) return undefined;
  return Object.values<Json>(media.examples ?? {}).map((e) => structuredClone(deref(document, e).value));
}

/** The pointer of an operation's JSON request schema. */
export const jsonRequestSchema = (operationPointer: string): string =>
  `${operationPointer}/requestBody/content/application~1json/schema`;

/** Validators for pointers into one document, compiled on first use with the shared ajv settings. */
export function validatorsFor(document: Json): (pointer: string) => ValidateFunction {
  const compiler = new AjvCompiler(document);
  return (pointer) => compiler.validator(pointer);
}

export interface Operation {
  method: string;
  path: string;
  pointer: string;
  op: Json;
}

/** Every operation of a bundled document. */
export function operations(document: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      if (item[method]) {
        out.push({ method, path, pointer: `/paths/${pointerToken(path)}/${method}`, op: item[method] });
      }
    }
  }
  return out;
}

/** Resolve a local `$ref` (one level) in a bundled document. */
export function deref(document: Json, node: Json): Json {
  if (!node?.$ref) return node;
  const parts = String(node.$ref)
    .replace(/^#\//, "")
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  return deref(
    document,
    parts.reduce((n: Json, k) => n?.[k], document),
  );
}
