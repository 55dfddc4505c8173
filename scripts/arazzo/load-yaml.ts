// Reading the Arazzo documents from their YAML (build and test time: yaml is a development
// dependency). What the package runs reads generated/arazzo.json instead (src/arazzo/bundled.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ARAZZO_DIR, type ArazzoFile, isArazzoFile } from "../../src/arazzo/documents.js";

/** Read every Arazzo document under `root` (the repository, or a checkout of it). */
export function loadArazzo(root: string): ArazzoFile[] {
  const dir = join(root, ARAZZO_DIR);
  return readdirSync(dir)
    .filter(isArazzoFile)
    .sort()
    .map((name) => parseArazzo(`${ARAZZO_DIR}/${name}`, readFileSync(join(dir, name), "utf8")));
}

/** Parse one document's text; a document that is not YAML is an error naming the file. */
export function parseArazzo(path: string, text: string): ArazzoFile {
  try {
    return { path, document: parse(text) };
  } catch (error) {
    throw new Error(`${path} is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
}
