// Lints the hand-authored contracts and bundles them into generated/ (npm run build:contract).
// With --check, compares instead of writing and fails when generated/ is stale.
import { bundleContract, lintContract, OPENAPI_SOURCE } from "./contract/openapi-bundle.js";
import { writeOrCheck } from "./lib/write-generated.js";

const check = process.argv.includes("--check");

const lint = lintContract(OPENAPI_SOURCE);
for (const p of lint.problems) console.error(`${p.severity} ${p.ruleId}: ${p.message}\n  at ${p.where}`);
if (lint.errors + lint.warnings > 0) {
  console.error(`redocly lint: ${lint.errors} errors, ${lint.warnings} warnings in ${OPENAPI_SOURCE}`);
  process.exit(1);
}
console.log(`redocly lint: ${OPENAPI_SOURCE} is clean`);

const bundle = bundleContract(OPENAPI_SOURCE);
const stale = writeOrCheck(
  [
    ["generated/openapi.json", bundle.json],
    ["generated/openapi.yaml", bundle.yaml],
  ],
  check,
  "npm run build:contract",
);
process.exit(stale > 0 ? 1 : 0);
