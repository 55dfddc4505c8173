// The benchmarks measure compiled JavaScript, as users run it: their sources are emitted with the
// project's tsc settings into a scratch directory that resolves the repository's packages.
import { spawnSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fromRoot } from "../scripts/lib/paths.js";

/**
 * Emit `sources` (and what they import) into `dir`/dist, keeping the repository's layout under it.
 * Returns the output directory and tsc's complaints (the output is emitted all the same).
 */
export function compileForBench(
  dir: string,
  sources: { include?: string[]; files?: string[] },
  options: { noCheck?: boolean } = {},
): { out: string; problems: string } {
  const out = join(dir, "dist");
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: fromRoot("tsconfig.json"),
      compilerOptions: {
        noEmit: false,
        outDir: out,
        rootDir: fromRoot(),
        typeRoots: [fromRoot("node_modules/@types")],
        types: ["node"],
      },
      include: sources.include ?? [],
      ...(sources.files ? { files: sources.files } : {}),
    }),
  );
  // The compiled files resolve packages and their module type from here.
  symlinkSync(fromRoot("node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "package.json"), '{"type":"module"}\n');
  const args = ["-p", join(dir, "tsconfig.json"), ...(options.noCheck ? ["--noCheck"] : [])];
  const tsc = spawnSync(fromRoot("node_modules/.bin/tsc"), args, { encoding: "utf8" });
  if (tsc.status !== 0 && !tsc.stdout) throw new Error(`tsc failed: ${tsc.stderr}`);
  return { out, problems: tsc.status === 0 ? "" : `${tsc.stdout}${tsc.stderr}` };
}
