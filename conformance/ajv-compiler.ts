import type { ValidateFunction } from "ajv";
import { createSchemaValidator } from "../src/schema-validator.js";
import type { Json, SchemaCompiler } from "./contract-model.js";

let nextId = 0;

/** Compiles the validator of each schema pointer on first use, with the shared ajv settings, and keeps it. */
export class AjvCompiler implements SchemaCompiler {
  private readonly ajv = createSchemaValidator();
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly id = `contract-${nextId++}.json`;

  constructor(document: Json) {
    // The document is not a JSON Schema: checking it against the meta-schema costs start-up time for nothing.
    this.ajv.addSchema(document, this.id, undefined, false);
  }

  /** The validator of the schema at a pointer, compiled on first use. */
  validator(schemaPointer: string): ValidateFunction {
    let fn = this.validators.get(schemaPointer);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `${this.id}#${schemaPointer}` });
      this.validators.set(schemaPointer, fn);
    }
    return fn;
  }
}
