import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv";
import type Ajv2020 from "ajv/dist/2020.js";

// ajv and ajv-formats (CommonJS) are loaded by the first createSchemaValidator(), not on import: a module
// that only may compile (the conformance suite's entry, whose checkers mostly use build-time validators)
// does not pay ajv's start-up.
const require = createRequire(import.meta.url);

/** OpenAPI words that may sit inside a schema; declared so that ajv can stay strict about everything else. */
const OPENAPI_SCHEMA_KEYWORDS = ["discriminator", "xml", "externalDocs", "example"];

/**
 * An ajv for the contract's schemas: JSON Schema 2020-12, formats, every error reported.
 * `strict: false` because whole documents are added, and their non-schema members are not keywords.
 */
export function createSchemaValidator(): Ajv2020.default {
  const { default: Ajv }: typeof import("ajv/dist/2020.js") = require("ajv/dist/2020.js");
  const { default: addFormats }: typeof import("ajv-formats") = require("ajv-formats");
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
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
