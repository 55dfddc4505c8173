// What users run is compiled JavaScript, so the tests of `npm start`, `npm run mock` and the like
// run the package's own build output, emitted once per test file into a directory of its own.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { fromRoot } from "../../scripts/lib/paths.js";

/**
 * Emit the package's build (tsconfig.build.json) into a fresh directory and return it with a
 * function that removes it. Inside node_modules so the compiled files resolve the repository's
 * dependencies; not dist/, which the package build rewrites while other test files run.
 */
export function compileToTemp(prefix: string): { out: string; remove: () => void } {
  mkdirSync(fromRoot("node_modules/.cache"), { recursive: true });
  const out = mkdtempSync(fromRoot(`node_modules/.cache/${prefix}-`));
  execFileSync(
    process.execPath,
    // Types are checked by the lint step, so only the emit is needed here.
    [
      fromRoot("node_modules/typescript/bin/tsc"),
      ...["-p", "tsconfig.build.json", "--outDir", out, "--noCheck", "--declaration", "false"],
    ],
    { cwd: fromRoot() },
  );
  return { out, remove: () => rmSync(out, { recursive: true, force: true }) };
}
