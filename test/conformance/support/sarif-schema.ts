// The SARIF 2.1.0 schema Microsoft ships with its SARIF SDK, compiled once: what a log of the suite
// must be valid against (check's, and the active tests').
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// ajv and ajv-formats are CommonJS: required, as src/contract/schema-validator.ts does.
const { default: Ajv }: typeof import("ajv") = require("ajv");
const { default: addFormats }: typeof import("ajv-formats") = require("ajv-formats");
const schema = JSON.parse(
  readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"),
);
// The schema is draft-04, whose only difference that matters to Ajv's draft-07 is `id` for `$id`.
delete schema.$schema;
delete schema.id;
// The schema's language-tag pattern is not a valid Unicode-mode regular expression (a stray `]`).
const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
addFormats(ajv);

/** Whether a value is a valid SARIF 2.1.0 log (its errors on the function, as Ajv keeps them). */
export const validateSarif = ajv.compile(schema);
