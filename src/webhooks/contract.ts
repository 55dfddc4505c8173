import type { ValidateFunction } from "ajv";
import asyncapi from "../../generated/asyncapi.json" with { type: "json" };
import { AjvCompiler } from "../schema-validator.js";
import { Vocabulary } from "../vocabulary.js";

// The bundle is imported, not read from disk, so that the compiled package carries it next to
// the code (tsc copies imported JSON) and no path has to be worked out at run time.
let compiler: AjvCompiler | undefined;

/** The validator of the schema at a pointer into generated/asyncapi.json, compiled on first use. */
export const validatorAt = (pointer: string): ValidateFunction =>
  (compiler ??= new AjvCompiler(asyncapi)).validator(pointer);

let words: Vocabulary | undefined;

/** The names the webhook contract writes: the only pointer tokens an error may show. */
export const contractWords = (): Vocabulary => (words ??= new Vocabulary(asyncapi));
