// One CommonJS script per program or worker thread, bundled by esbuild from the TypeScript sources:
// Node's single executables run CommonJS. Three things an ES module of ours does at run time are
// made static here, so that esbuild bundles what they load:
// - `createRequire(import.meta.url)`: the plain `require` of the bundle, whose calls esbuild follows;
// - `import(new URL("…/generated/x.js", import.meta.url).href)` (the generated validators and
//   coverage index): a literal `import("…/generated/x.js")`;
// - `import("node:os")`: a single executable's main script has no dynamic import, so a builtin
//   loaded when needed is required then instead;
// - `import.meta.url`, which CommonJS lacks: the module's place under the bundle's root
//   (bundle-root.ts), where its worker threads' scripts are assets.
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import * as esbuild from "esbuild";
import { fromRoot, ROOT } from "../lib/paths.js";

/** A bundle to make: the source entry and the script it becomes. */
export interface BundleJob {
  entry: string;
  outfile: string;
}

const GENERATED_IMPORT = /import\(\s*new URL\(\s*("[^"]+\.js"),\s*import\.meta\.url\s*\)\.href\s*\)/g;
const BUILTIN_IMPORT = /\bimport\(\s*("node:[\w/]+")\s*\)/g;
const CREATE_REQUIRE = /const require = createRequire\(import\.meta\.url\);/g;

/** The source of one of our modules, made static for the bundle (see the head of this file). */
export function staticSource(source: string, path: string): string {
  const place = relative(ROOT, path).split("\\").join("/").replace(/\.ts$/, ".js");
  return source
    .replace(CREATE_REQUIRE, "")
    .replace(GENERATED_IMPORT, "import($1)")
    .replace(BUILTIN_IMPORT, "Promise.resolve().then(() => require($1))")
    .replaceAll("import.meta.url", `(__idvBundleRoot + ${JSON.stringify(place)})`);
}

const ourModules: esbuild.Plugin = {
  name: "idv-static-modules",
  setup(build) {
    build.onLoad({ filter: /\.(ts|js)$/ }, async (args) => {
      if (args.path.includes("node_modules")) return undefined;
      const source = await readFile(args.path, "utf8");
      return { contents: staticSource(source, args.path), loader: args.path.endsWith(".ts") ? "ts" : "js" };
    });
  },
};

/** Bundle each job into one CommonJS script for the executables' Node 22; throws with esbuild's errors. */
export async function bundle(jobs: BundleJob[]): Promise<void> {
  for (const job of jobs) {
    await esbuild.build({
      entryPoints: [fromRoot(job.entry)],
      outfile: job.outfile,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node22",
      inject: [fromRoot("scripts/binaries/bundle-root.ts")],
      plugins: [ourModules],
      legalComments: "none",
      logLevel: "error",
    });
  }
}
