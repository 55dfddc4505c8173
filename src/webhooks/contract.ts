import type { ValidateFunction } from "ajv";
import asyncapi from "../../generated/asyncapi.json" with { type: "json" };
import { createSchemaValidator } from "../schema-validator.js";

// The bundle is imported, not read from disk, so that the compiled package carries it next to
// the code (tsc copies imported JSON) and no path has to be worked out at run time.
const DOCUMENT_ID = "asyncapi.json";

let ajv: ReturnType<typeof createSchemaValidator> | undefined;
const validators = new Map<string, ValidateFunction>();

/** The validator of the schema at a pointer into generated/asyncapi.json, compiled on first use. */
export function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    if (!ajv) {
      ajv = createSchemaValidator();
      ajv.addSchema(asyncapi, DOCUMENT_ID);
    }
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

// The bundle is walked structurally.
type Json = any;

function resolve(node: Json): Json {
  if (typeof node?.$ref !== "string") return node;
  return resolve(
    node.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((n: Json, k: string) => n?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], asyncapi),
  );
}

/** The property names a schema of the bundle declares, through `$ref` and `allOf`: the headers a message names. */
export function declaredProperties(pointer: string): string[] {
  const names = new Set<string>();
  const walk = (node: Json) => {
    const schema = resolve(node);
    for (const name of Object.keys(schema?.properties ?? {})) names.add(name);
    for (const part of schema?.allOf ?? []) walk(part);
  };
  walk({ $ref: `#${pointer}` });
  return [...names];
}
