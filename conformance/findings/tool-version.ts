// The package's own version, for reports that name the tool that wrote them (SARIF's tool.driver).
// Read from the package's package.json, found above this file: the same file at any depth, whether
// run from the sources (conformance/findings/) or from the package (dist/conformance/findings/).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** How many folders up package.json is looked for: dist/conformance/findings/ is three below it. */
const MAX_LEVELS = 4;
/** package.json is small; a larger file is not the package's. */
const MAX_BYTES = 64 * 1024;

let known: string | undefined | null = null;

/** The version of the idv-contract package this code is part of; undefined when it cannot be read. */
export function toolVersion(): string | undefined {
  if (known !== null) return known;
  known = undefined;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < MAX_LEVELS; level++, dir = dirname(dir)) {
    try {
      const text = readFileSync(join(dir, "package.json"), "utf8");
      if (text.length > MAX_BYTES) continue;
      const json = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (json.name === "idv-contract" && typeof json.version === "string") {
        known = json.version;
        break;
      }
    } catch {
      // No package.json here (or not one to read): look further up.
    }
  }
  return known;
}
