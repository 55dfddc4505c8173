// npm run build: compile src/, conformance/ and generated/ into dist/ (ESM and declarations).
// tsc does not copy the generated JavaScript validators, so they are copied beside their importers.
// The docs site of this version is built into dist/site, which the packaged sandbox serves at /docs/.
import { chmodSync, copyFileSync, readdirSync, rmSync } from "node:fs";
import { buildSite, DEFAULT_BUILD } from "./docs/build-site.js";
import { fromRoot } from "./lib/paths.js";
import { runTool } from "./lib/run-tool.js";

rmSync(fromRoot("dist"), { recursive: true, force: true });
const tsc = runTool("tsc", ["-p", "tsconfig.build.json"]);
if (tsc.status !== 0) {
  console.error(tsc.stdout + tsc.stderr);
  process.exit(1);
}
for (const file of readdirSync(fromRoot("generated")).filter((f) => f.endsWith(".js"))) {
  copyFileSync(fromRoot("generated", file), fromRoot("dist/generated", file));
}
// The bin must be executable for `npx idv-conformance` in this checkout (npm sets the bit only on install).
chmodSync(fromRoot("dist/conformance/cli.js"), 0o755);
await buildSite({ ...DEFAULT_BUILD, outDir: fromRoot("dist/site"), root: "/docs/" });
console.log("built dist/ (and the docs site in dist/site/)");
