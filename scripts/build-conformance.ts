// npm run build:conformance: generate the validators as ajv standalone code, so that what users run
// starts without ajv's compiler: generated/conformance-validators.js for the conformance suite, and
// generated/webhook-validators.ts for the webhook helpers (compiled into the package with them); and
// generated/coverage-index.js, what coverage reports count of the two contracts; and
// generated/contract-sources.js, where each part of the two bundles is written in openapi/ and asyncapi/;
// vectors/receiver.json, the receiver battery's cases as test vectors any language can run (from the
// AsyncAPI contract and the battery's own case table: this is the one script that may import conformance/).
// `--check` fails instead of writing when a committed file is stale; `--only vectors` (npm run
// build:vectors, check:vectors) does the vectors alone.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import standaloneCode from "ajv/dist/standalone/index.js";
import { ContractModel, type Json } from "../conformance/checks/contract-model.js";
import { receiverVectorsText } from "../conformance/receiver-check/vectors.js";
import { webhookChannels } from "../generated/webhook-events.js";
import { contractDigest } from "../src/contract/precompiled.js";
import { createSchemaValidator } from "../src/contract/schema-validator.js";
import { commentHeader } from "./lib/generated-header.js";
import { buildContractSourcesModule } from "./lib/contract-sources-module.js";
import { buildCoverageIndexModule } from "./lib/coverage-index-module.js";
import { fromRoot } from "./lib/paths.js";
import { writeOrCheck } from "./lib/write-generated.js";

const OUT = "generated/conformance-validators.js";
const SOURCE = "generated/openapi.json";
const WEBHOOK_OUT = "generated/webhook-validators.ts";
const WEBHOOK_SOURCE = "generated/asyncapi.json";
const INDEX_OUT = "generated/coverage-index.js";
const VECTORS_OUT = "vectors/receiver.json";
const SOURCES_OUT = "generated/contract-sources.js";

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

/** Every schema the webhook helpers validate: each known event's payload and headers. */
function webhookPointers(): string[] {
  const pointers: string[] = [];
  for (const channel of Object.values(webhookChannels))
    for (const schemas of Object.values(channel.events) as { payload: string; headers?: string }[]) {
      pointers.push(schemas.payload);
      if (schemas.headers) pointers.push(schemas.headers);
    }
  return pointers;
}

/**
 * The webhook helpers' validators as a TypeScript module (tsc compiles it into the package beside
 * the helpers): one standalone validator per schema of generated/webhook-events.ts, by pointer.
 */
export function buildWebhookValidatorsModule(document: Json): string {
  const ajv = createSchemaValidator();
  ajv.opts.code.source = true;
  ajv.opts.code.esm = true;
  ajv.addSchema(document, "asyncapi.json", undefined, false);
  const pointers = webhookPointers();
  const exports: Record<string, string> = {};
  pointers.forEach((pointer, i) => {
    ajv.addSchema({ $ref: `asyncapi.json#${pointer}` }, `w${i}`);
    exports[`w${i}`] = `w${i}`;
  });
  const code = standaloneCode
    .default(ajv, exports)
    .replace(/^"use strict";/, "")
    // Only the table below is the module's interface.
    .replace(/\bexport const (w\d+) = /g, "const $1 = ");
  const table = pointers.map((pointer, i) => `  ${JSON.stringify(pointer)}: w${i},`).join("\n");
  return `${commentHeader("//", WEBHOOK_SOURCE, "npm run build:conformance")}// @ts-nocheck: ajv's standalone code is JavaScript; the table's type is what callers see.
import type { ValidateFunction } from "ajv";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
${code}
/** The validator of each webhook schema, by its pointer into generated/asyncapi.json. */
export const validators: Record<string, ValidateFunction> = {
${table}
};
`;
}

function main(): void {
  const { values } = parseArgs({ options: { check: { type: "boolean" }, only: { type: "string" } } });
  if (values.only !== undefined && values.only !== "vectors")
    throw new Error("--only takes one value: vectors");
  const asyncapi = JSON.parse(readFileSync(fromRoot(WEBHOOK_SOURCE), "utf8"));
  const vectors: [string, string] = [VECTORS_OUT, receiverVectorsText(asyncapi)];
  const files = (): [string, string][] => {
    const document = JSON.parse(readFileSync(fromRoot(SOURCE), "utf8"));
    return [
      [OUT, buildValidatorsModule(document)],
      [WEBHOOK_OUT, buildWebhookValidatorsModule(asyncapi)],
      [INDEX_OUT, buildCoverageIndexModule(document, asyncapi, `${SOURCE} and ${WEBHOOK_SOURCE}`)],
      [
        SOURCES_OUT,
        buildContractSourcesModule(document, asyncapi, `${SOURCE}, ${WEBHOOK_SOURCE} and their sources`),
      ],
      vectors,
    ];
  };
  const stale = writeOrCheck(
    values.only === "vectors" ? [vectors] : files(),
    values.check === true,
    values.only === "vectors" ? "npm run build:vectors" : "npm run build:conformance",
  );
  process.exitCode = stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();
