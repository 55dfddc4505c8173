// Lints the hand-authored contracts and bundles them into generated/ (npm run build:contract).
// With --check, compares instead of writing and fails when generated/ is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { bundleContract, lintContract, OPENAPI_SOURCE } from "./contract/openapi-bundle.js";
import { fromRoot } from "./lib/paths.js";

const check = process.argv.includes("--check");

const lint = lintContract(OPENAPI_SOURCE);
for (const p of lint.problems) console.error(`${p.severity} ${p.ruleId}: ${p.message}\n  at ${p.where}`);
if (lint.errors + lint.warnings > 0) {
  console.error(`redocly lint: ${lint.errors} errors, ${lint.warnings} warnings in ${OPENAPI_SOURCE}`);
  process.exit(1);
}
console.log(`redocly lint: ${OPENAPI_SOURCE} is clean`);

const bundle = bundleContract(OPENAPI_SOURCE);
let stale = 0;
for (const [file, text] of [
  ["generated/openapi.json", bundle.json],
  ["generated/openapi.yaml", bundle.yaml],
] as const) {
  const path = fromRoot(file);
  if (check) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // A missing file is simply stale.
    }
    if (current !== text) {
      console.error(`${file} is stale: run npm run build:contract and commit the result`);
      stale++;
    }
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
