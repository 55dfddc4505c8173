import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import { fromRoot } from "../../scripts/lib/paths.js";
import { createSchemaValidator } from "../../src/schema-validator.js";

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

// A parsed OpenAPI document is walked structurally.
export type Json = any;

/** The committed OpenAPI bundle. */
export function loadOpenApi(): Json {
  return JSON.parse(readFileSync(fromRoot("generated/openapi.json"), "utf8"));
}

/** The interface document the contract is written from (x-gap quotes must be its exact words). */
export function loadInterfaceDocument(): string {
  return readFileSync(fromRoot("docs/interface-document.md"), "utf8");
}

/** Escape one JSON pointer token. */
export const pointerToken = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Compile validators for pointers into one document, sharing one ajv. */
export function validatorsFor(document: Json, id = "contract.json"): (pointer: string) => ValidateFunction {
  const ajv = createSchemaValidator();
  ajv.addSchema(document, id);
  const cache = new Map<string, ValidateFunction>();
  return (pointer) => {
    let fn = cache.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `${id}#${pointer}` });
      cache.set(pointer, fn);
    }
    return fn;
  };
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
