// The sandbox control API's own contract (openapi-sandbox/) → generated/sandbox-control.json and its
// TypeScript types (npm run build:sandbox). Kept apart from the service's bundle on purpose: the
// control API is the sandbox's, not the service's. With --check, fails when generated/ is stale.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { generateTypes } from "./codegen/types.js";
import { commentHeader, generatedNotice } from "./lib/generated-header.js";
import { fromRoot } from "./lib/paths.js";
import { runTool } from "./lib/run-tool.js";
import { writeOrCheck } from "./lib/write-generated.js";

const SOURCE = "openapi-sandbox/sandbox-control.yaml";
const COMMAND = "npm run build:sandbox";
const check = process.argv.includes("--check");

// Redocly's recommended rules, zero warnings, with the control API's own configuration.
const lint = runTool("redocly", [
  "lint",
  SOURCE,
  "--config",
  "openapi-sandbox/redocly.yaml",
  "--format",
  "json",
]);
let report: {
  totals?: { errors: number; warnings: number };
  problems?: { ruleId: string; message: string }[];
};
try {
  report = JSON.parse(lint.stdout);
} catch {
  throw new Error(`redocly lint gave no report for ${SOURCE}:\n${lint.stderr.slice(-2000)}`);
}
for (const p of report.problems ?? []) console.error(`${p.ruleId}: ${p.message}`);
if ((report.totals?.errors ?? 1) + (report.totals?.warnings ?? 0) > 0) {
  console.error(`redocly lint: ${SOURCE} has problems`);
  process.exit(1);
}
console.log(`redocly lint: ${SOURCE} is clean`);

const source = parse(readFileSync(fromRoot(SOURCE), "utf8")) as Record<string, unknown>;
if (source.openapi !== "3.1.0") throw new Error(`${SOURCE} must be an OpenAPI 3.1.0 document`);
const document = { "x-generated": generatedNotice(SOURCE, COMMAND), ...source };
const types = await generateTypes(document);

const stale = writeOrCheck(
  [
    ["generated/sandbox-control.json", `${JSON.stringify(document, null, 2)}\n`],
    ["generated/sandbox-control-types.ts", commentHeader("//", SOURCE, COMMAND) + types],
  ],
  check,
  COMMAND,
);
process.exit(stale > 0 ? 1 : 0);
