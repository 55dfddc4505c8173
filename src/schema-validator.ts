import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** OpenAPI words that may sit inside a schema; declared so that ajv can stay strict about everything else. */
const OPENAPI_SCHEMA_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"];

/**
 * An ajv for the contract's schemas: JSON Schema 2020-12, formats, every error reported.
 * `strict: false` because whole documents are added, and their non-schema members are not keywords.
 */
export function createSchemaValidator(): Ajv2020.default {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  // Binary media is checked by media type, not by the JSON validator.
  ajv.addFormat("binary", true);
  for (const keyword of OPENAPI_SCHEMA_KEYWORDS) {
    if (!ajv.getKeyword(keyword)) ajv.addKeyword(keyword);
  }
  return ajv;
}

let nextId = 0;

/** Compiles the validator of each schema pointer of one document on first use, with the shared ajv settings, and keeps it. */
export class AjvCompiler {
  private readonly ajv = createSchemaValidator();
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly id = `contract-${nextId++}.json`;

  constructor(document: object) {
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
