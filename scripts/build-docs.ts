/**
 * `npm run docs`: build the reference site from the contracts into build/docs (or --out DIR).
 * Works without a network; see docs/decisions/docs.md.
 */
import { relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildSite, DEFAULT_BUILD } from "./docs/build-site.js";
import { ROOT } from "./lib/paths.js";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { out: { type: "string" } }, strict: true });
  const outDir = values.out ? resolve(values.out) : DEFAULT_BUILD.outDir;
  const started = performance.now();
  const result = await buildSite({ ...DEFAULT_BUILD, outDir });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const asyncGaps = result.gaps.asyncapi === null ? "no AsyncAPI bundle" : `${result.gaps.asyncapi} AsyncAPI`;
  console.log(
    `docs: ${result.files.length} files in ${relative(ROOT, outDir) || "."}/ (${result.operations} operations, ${result.guides.length} guides; gaps: ${result.gaps.openapi} OpenAPI, ${asyncGaps}) in ${seconds}s`,
  );
  if (result.warning) console.warn(`docs: warning: ${result.warning}`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`docs: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
