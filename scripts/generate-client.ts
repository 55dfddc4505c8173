// Generates the client's types and per-operation facts from generated/openapi.json (npm run generate),
// and generated/README.md, the map of generated/.
// With --check, compares instead of writing and fails when a generated file is stale.
import { generateClientFiles } from "./codegen/generate.js";
import { generatedReadme } from "./lib/generated-readme.js";
import { writeOrCheck } from "./lib/write-generated.js";

const check = process.argv.includes("--check");

try {
  const files = await generateClientFiles();
  // The map of generated/ is written with the files it names.
  const readme: [string, string] = ["generated/README.md", generatedReadme()];
  const stale = writeOrCheck([...Object.entries(files), readme], check, "npm run generate");
  process.exitCode = stale > 0 ? 1 : 0;
} catch (error) {
  console.error(`generate: ${(error as Error).message}`);
  process.exitCode = 1;
}
