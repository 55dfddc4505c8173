// npm run build: compile src/, conformance/ and generated/ into dist/ (ESM and declarations).
// tsc does not copy the generated JavaScript validators, so they are copied beside their importers.
import { chmodSync, copyFileSync, readdirSync, rmSync } from "node:fs";
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
console.log("built dist/");
