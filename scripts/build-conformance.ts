// npm run build:conformance: generate generated/conformance-validators.js, the conformance suite's
// validators as ajv standalone code, so that the CLI starts without ajv's compiler.
// `--check` fails instead of writing when the committed file is stale.
import { readFileSync } from "node:fs";
import standaloneCode from "ajv/dist/standalone/index.js";
import { ContractModel, type Json } from "../conformance/contract-model.js";
import { contractDigest } from "../conformance/precompiled.js";
import { createSchemaValidator } from "../src/schema-validator.js";
import { commentHeader } from "./lib/generated-header.js";
import { fromRoot } from "./lib/paths.js";
import { writeOrCheck } from "./lib/write-generated.js";

const OUT = "generated/conformance-validators.js";
const SOURCE = "generated/openapi.json";

/** The module text: one standalone validator per schema pointer the checks use, and the contract's digest. */
export function buildValidatorsModule(document: Json): string {
  const ajv = createSchemaValidator();
  // The shared factory's settings, plus source generation (read by ajv when compiling).
  ajv.opts.code.source = true;
  ajv.opts.code.esm = true;
  ajv.addSchema(document, "contract.json", undefined, false);
  const pointers = new ContractModel(document, { validator: () => ajv.compile(true) }).schemaPointers();
  const exports: Record<string, string> = {};
  pointers.forEach((pointer, i) => {
    ajv.addSchema({ $ref: `contract.json#${pointer}` }, `v${i}`);
    exports[`v${i}`] = `v${i}`;
  });
  const code = standaloneCode.default(ajv, exports).replace(/^"use strict";/, "");
  const table = pointers.map((pointer, i) => `  ${JSON.stringify(pointer)}: v${i},`).join("\n");
  return `${commentHeader("//", SOURCE, "npm run build:conformance")}
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
export const contractSha256 = ${JSON.stringify(contractDigest(document))};
${code}
export const validators = {
${table}
};
`;
}

function main(): void {
  const document = JSON.parse(readFileSync(fromRoot(SOURCE), "utf8"));
  const stale = writeOrCheck(
    [[OUT, buildValidatorsModule(document)]],
    process.argv.includes("--check"),
    "npm run build:conformance",
  );
  process.exitCode = stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();
