// Generates the client's types and per-operation facts from generated/openapi.json (npm run generate).
// With --check, compares instead of writing and fails when a generated file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { generateClientFiles } from "./codegen/generate.js";
import { fromRoot } from "./lib/paths.js";

const check = process.argv.includes("--check");

try {
  const files = await generateClientFiles();
  let stale = 0;
  for (const [file, text] of Object.entries(files)) {
    const path = fromRoot(file);
    if (check) {
      let current = "";
      try {
        current = readFileSync(path, "utf8");
      } catch {
        // A missing file is simply stale.
      }
      if (current !== text) {
        console.error(`${file} is stale: run npm run generate and commit the result`);
        stale++;
      }
    } else {
      writeFileSync(path, text);
      console.log(`wrote ${file}`);
    }
  }
  process.exitCode = stale > 0 ? 1 : 0;
} catch (error) {
  console.error(`generate: ${(error as Error).message}`);
  process.exitCode = 1;
}
