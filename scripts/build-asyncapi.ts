// Bundles the hand-authored AsyncAPI contract into generated/ (npm run build:asyncapi): checks it
// with the official parser and every message example with ajv, then writes the bundle and the
// webhook event table. With --check, compares instead of writing and fails when generated/ is stale.
import { ASYNCAPI_SOURCE, bundleAsyncApi } from "./contract/asyncapi-bundle.js";
import { EVENTS_FILE, renderEventsModule } from "./contract/asyncapi-events.js";
import { checkMessageExamples, parseAsyncApi } from "./contract/asyncapi-validate.js";
import { writeOrCheck } from "./lib/write-generated.js";

const check = process.argv.includes("--check");

try {
  const bundle = bundleAsyncApi(ASYNCAPI_SOURCE);

  const report = await parseAsyncApi(bundle.document);
  for (const line of report.warnings) console.warn(`warning ${line}`);
  for (const line of report.errors) console.error(`error ${line}`);
  if (report.errors.length > 0) throw new Error(`@asyncapi/parser: ${report.errors.length} errors`);
  console.log(`@asyncapi/parser: ${ASYNCAPI_SOURCE} is valid (${report.warnings.length} warnings)`);

  const failures = checkMessageExamples(bundle.document);
  for (const line of failures) console.error(line);
  if (failures.length > 0) throw new Error(`${failures.length} message examples do not match their schemas`);
  console.log("every message example matches its schemas");

  const stale = writeOrCheck(
    [
      ["generated/asyncapi.json", bundle.json],
      ["generated/asyncapi.yaml", bundle.yaml],
      [EVENTS_FILE, renderEventsModule(bundle.document)],
    ],
    check,
    "npm run build:asyncapi",
  );
  process.exitCode = stale > 0 ? 1 : 0;
} catch (error) {
  console.error(`build:asyncapi: ${(error as Error).message}`);
  process.exitCode = 1;
}
