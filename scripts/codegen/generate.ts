import { readFileSync } from "node:fs";
import { commentHeader } from "../lib/generated-header.js";
import { fromRoot } from "../lib/paths.js";
import { renderManifest } from "./manifest.js";
import { errorCodes, operationFacts, renderOperationFacts } from "./operation-facts.js";
import { generateTypes } from "./types.js";

const CONTRACT = "generated/openapi.json";
export const COMMAND = "npm run generate";
export const OUTPUTS = ["generated/types.ts", "generated/operations.ts", "generated/manifest.json"] as const;

const versionOf = (pkg: string): string =>
  JSON.parse(readFileSync(fromRoot("node_modules", pkg, "package.json"), "utf8")).version;

/** Everything the client generation writes, file by file, from the committed contract bundle. */
export async function generateClientFiles(contractText = readFileSync(fromRoot(CONTRACT), "utf8")) {
  let document: object;
  try {
    document = JSON.parse(contractText);
  } catch (error) {
    throw new Error(`${CONTRACT} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const header = commentHeader("//", CONTRACT, COMMAND);
  const types = header + (await generateTypes(document));
  const operations = `${header}\n${renderOperationFacts(operationFacts(document), errorCodes(document))}`;
  const manifest = renderManifest({
    source: CONTRACT,
    sourceText: contractText,
    command: COMMAND,
    generator: "scripts/generate-client.ts",
    tools: { "openapi-typescript": versionOf("openapi-typescript"), typescript: versionOf("typescript") },
    files: { "generated/types.ts": types, "generated/operations.ts": operations },
  });
  return {
    "generated/types.ts": types,
    "generated/operations.ts": operations,
    "generated/manifest.json": manifest,
  } satisfies Record<(typeof OUTPUTS)[number], string>;
}
