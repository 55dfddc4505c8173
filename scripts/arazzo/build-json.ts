// arazzo/*.arazzo.yaml → generated/arazzo.json (npm run build:arazzo), the form the probe reads at
// run time: the package ships the YAML for people and tools, and this JSON so that what it runs needs
// no YAML parser (yaml is a development dependency). With --check, fails when the JSON is stale.
import { generatedNotice } from "../lib/generated-header.js";
import { ROOT } from "../lib/paths.js";
import { writeOrCheck } from "../lib/write-generated.js";
import { loadArazzo } from "./load-yaml.js";

const COMMAND = "npm run build:arazzo";

/** The text of generated/arazzo.json for the documents under `root`. */
export function arazzoJson(root: string): string {
  const documents = loadArazzo(root);
  const bundle = { "x-generated": generatedNotice("arazzo/*.arazzo.yaml", COMMAND), documents };
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const stale = writeOrCheck(
    [["generated/arazzo.json", arazzoJson(ROOT)]],
    process.argv.includes("--check"),
    COMMAND,
  );
  process.exit(stale > 0 ? 1 : 0);
}
