// What the package tests share: npm run quietly, the package built and packed as npm packs it, a fresh
// project that installs the tarball as an integrator would, and that project's own TypeScript.
import { execFileSync, type SpawnSyncReturns, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fromRoot } from "../../../scripts/lib/paths.js";
import { QUIET_ENV } from "../../../scripts/lib/run-tool.js";

/** npm in `cwd`, without audit, funding or progress noise; its standard output. */
export const npm = (args: string[], cwd: string): string =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env: QUIET_ENV,
    encoding: "utf8",
  });

/** The packed package: its tarball, the files npm listed, and the staged README once postpack ran. */
export interface Packed {
  tarball: string;
  files: string[];
  stagedReadmeAfterPack: string;
}

/**
 * Build the package and pack it into `dir` as `npm pack` does, but from a copy of what npm packs, so
 * that the README swap of prepack/postpack runs without touching the repository's own README (which
 * other tests read meanwhile).
 */
export function packPackage(dir: string): Packed {
  // npm run build: the package's own build, so that the tests cover it too.
  npm(["run", "build"], fromRoot());
  const stage = join(dir, "stage");
  // Exactly the files npm would pack from the repository, and the package's README source.
  const [listed] = JSON.parse(npm(["pack", "--dry-run", "--ignore-scripts", "--json"], fromRoot()));
  for (const { path } of [...(listed?.files ?? []), { path: "docs/package/README.md" }]) {
    cpSync(fromRoot(path), join(stage, path));
  }
  const swapReadme = (step: "in" | "out") =>
    execFileSync(
      process.execPath,
      [fromRoot("node_modules/tsx/dist/cli.mjs"), fromRoot("scripts/package-readme.ts"), step, stage],
      { encoding: "utf8" },
    );
  // npm pack runs prepack (the build, above, then the swap) and postpack; here they run around it.
  swapReadme("in");
  const [packed] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], stage));
  swapReadme("out");
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return {
    tarball: join(dir, tarball),
    files: (packed?.files ?? []).map((f: { path: string }) => f.path),
    stagedReadmeAfterPack: readFileSync(join(stage, "README.md"), "utf8"),
  };
}

/** A fresh ES-module project at `folder` named `name`, with `packages` installed (no install scripts). */
export function freshProject(folder: string, name: string, packages: string[]): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  // The dependencies come from the npm cache the repository was installed from when it has them.
  npm(["install", "--prefer-offline", "--ignore-scripts", ...packages], folder);
}

/** Link the repository's own copy of each module into a project that has none of it (tsc, types). */
export function linkFromRepository(project: string, modules: string[]): void {
  for (const module of modules) {
    const target = join(project, "node_modules", module);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(fromRoot("node_modules", module), target, "dir");
  }
}

/** A tsconfig.json in `folder` that checks its own `*.ts` files with these options. */
export function writeTsconfig(folder: string, compilerOptions: Record<string, unknown>): void {
  writeFileSync(join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
}

/** The project's own tsc (linked by linkFromRepository), run in the project with these arguments. */
export const projectTsc = (project: string, args: string[]): SpawnSyncReturns<string> =>
  spawnSync(process.execPath, [join(project, "node_modules/typescript/bin/tsc"), ...args], {
    cwd: project,
    encoding: "utf8",
  });
