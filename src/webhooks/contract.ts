import type { ValidateFunction } from "ajv";
import asyncapi from "../../generated/asyncapi.json" with { type: "json" };
import { validators } from "../../generated/webhook-validators.js";
import { Vocabulary } from "../vocabulary.js";

// The bundle is imported, not read from disk, so that the compiled package carries it next to
// the code (tsc copies imported JSON) and no path has to be worked out at run time.

/**
 * The validator of the schema at a pointer into generated/asyncapi.json: generated at build time
 * (`npm run build:conformance`), so that no delivery waits for ajv to compile it.
 */
export function validatorAt(pointer: string): ValidateFunction {
  const validate = Object.hasOwn(validators, pointer) ? validators[pointer] : undefined;
  if (!validate) throw new Error(`no generated validator for ${pointer}: run npm run build:conformance`);
  return validate;
}

let words: Vocabulary | undefined;

/** The names the webhook contract writes: the only pointer tokens an error may show. */
export const contractWords = (): Vocabulary => (words ??= new Vocabulary(asyncapi));
