// generated/README.md, written by `npm run generate` from the build plan, so that the map of
// generated/ names every file the build writes there and the step that writes it.
import { STEPS } from "./build-plan.js";

/** What each generated file is, in a line. */
const WHAT: Record<string, string> = {
  "openapi.json":
    "The OpenAPI contract bundled into one document (what the package exports as `idv-contract/openapi.json`).",
  "openapi.yaml": "The same bundle in YAML.",
  "asyncapi.json": "The AsyncAPI contract of the deliveries, bundled (`idv-contract/asyncapi.json`).",
  "asyncapi.yaml": "The same bundle in YAML.",
  "arazzo.json":
    "The Arazzo workflows (`arazzo/`) as JSON, for the probe and the docs to read without a YAML parser.",
  "webhook-events.ts": "The deliveries' payload types and event names, for `src/webhooks/`.",
  "types.ts": "The API's TypeScript types (openapi-typescript), for the client.",
  "operations.ts":
    "Per-operation facts the client's runtime needs (methods, media types, file uploads), and the paths `download()` and `upload()` take, by method.",
  "manifest.json":
    "What the client's generated files were made from: the contract's digest and the tools' versions.",
  "sandbox-control.json": "The sandbox control API's own bundled contract (from `openapi-sandbox/`).",
  "sandbox-control-types.ts": "Its TypeScript types, for the sandbox and its typed control helper.",
  "conformance-validators.js":
    "The conformance suite's validators as ajv standalone code, for a short start.",
  "webhook-validators.ts": "The webhook helpers' payload validators as ajv standalone code.",
  "coverage-index.js":
    "What coverage reports count of each bundled contract, and its `x-gap` locations, for a short `--coverage` run.",
  "contract-sources.js":
    "Where each part of the two bundles is written in `openapi/` and `asyncapi/` (file, line, column), for SARIF results on the contract's own lines.",
  "README.md": "This map.",
};

/** The text of generated/README.md. */
export function generatedReadme(): string {
  const rows = STEPS.flatMap((step) =>
    step.outputs
      .filter((output) => output.startsWith("generated/"))
      .map((output) => {
        const name = output.slice("generated/".length);
        const what = WHAT[name];
        if (!what) throw new Error(`generated-readme.ts: say what ${output} is`);
        return `| \`${name}\` | \`npm run ${step.script}\` | ${what} |`;
      }),
  );
  return [
    "# generated/",
    "",
    "Everything here is made from the contract by `scripts/`: never edit it by hand. Change the source",
    "(`openapi/`, `asyncapi/`, `openapi-sandbox/`) and run `npm run build:all`, or the one step below.",
    "The `check:*` scripts and the tests fail when a file here is stale. This file is written by",
    "`npm run generate` from the build plan (`scripts/lib/build-plan.ts`).",
    "",
    "| File | Written by | What it is |",
    "|---|---|---|",
    ...rows,
    "",
    "`src/` imports the types and validators; the mock, the sandbox and the suite read the bundles at",
    "start. The package ships the bundles and the compiled TypeScript (`dist/generated/`).",
    "",
  ].join("\n");
}
