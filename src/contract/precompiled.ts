import { createHash } from "node:crypto";
import type { ValidateFunction } from "ajv";
import type { Json } from "./json.js";
import type { SchemaCompiler } from "./schema-compiler.js";

/** Digests already taken, by document: a run's checker and its coverage both ask for one. */
const digests = new WeakMap<object, string>();

/**
 * The digest the build-time validators record of the contract they were generated from. Kept per
 * document object: a contract is never changed once read.
 */
export function contractDigest(document: Json): string {
  const keep = document !== null && typeof document === "object";
  const known = keep ? digests.get(document) : undefined;
  if (known !== undefined) return known;
  const digest = createHash("sha256").update(JSON.stringify(document)).digest("hex");
  if (keep) digests.set(document, digest);
  return digest;
}

interface ValidatorsModule {
  contractSha256: string;
  validators: Record<string, ValidateFunction>;
}

/**
 * The validators generated at build time (generated/conformance-validators.js) when they were made
 * from this very document; undefined otherwise, and the caller compiles with ajv instead.
 */
export async function loadPrecompiled(document: Json): Promise<SchemaCompiler | undefined> {
  let module: ValidatorsModule;
  try {
    // Not a literal specifier: the file is JavaScript generated beside the sources, without types.
    module = await import(new URL("../../generated/conformance-validators.js", import.meta.url).href);
  } catch {
    return undefined;
  }
  if (module.contractSha256 !== contractDigest(document)) return undefined;
  const { validators } = module;
  return {
    validator(schemaPointer) {
      const fn = Object.hasOwn(validators, schemaPointer) ? validators[schemaPointer] : undefined;
      if (!fn) throw new Error(`no generated validator for ${schemaPointer}: run npm run build:conformance`);
      return fn;
    },
  };
}

/**
 * The contract's schema compiler: the build-time validators when they were made from this document,
 * else ajv compiling each schema on first use (loaded only then: start-up does not pay for it).
 */
export async function openSchemaCompiler(document: Json): Promise<SchemaCompiler> {
  return (await loadPrecompiled(document)) ?? new (await import("./ajv-compiler.js")).AjvCompiler(document);
}
