import { readFileSync, writeFileSync } from "node:fs";
import { fromRoot } from "./paths.js";

/**
 * Write generated files, or with `check` compare them with what is committed instead.
 * Returns how many are stale (always 0 when writing).
 */
export function writeOrCheck(files: [file: string, text: string][], check: boolean, command: string): number {
  let stale = 0;
  for (const [file, text] of files) {
    const path = fromRoot(file);
    if (!check) {
      writeFileSync(path, text);
      console.log(`wrote ${file}`);
      continue;
    }
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // A missing file is simply stale.
    }
    if (current !== text) {
      console.error(`${file} is stale: run ${command} and commit the result`);
      stale++;
    }
  }
  return stale;
}
