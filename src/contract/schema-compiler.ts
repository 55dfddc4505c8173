import type { ValidateFunction } from "ajv";

/** Gives the validator of the schema at a JSON pointer into the document. */
export interface SchemaCompiler {
  validator(schemaPointer: string): ValidateFunction;
}
