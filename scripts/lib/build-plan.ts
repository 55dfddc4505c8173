// The build steps of `npm run build:all` and `npm start`, in order, with what each reads and writes.
import type { BuildStep } from "./build-steps.js";

// What every step may read: the build scripts, the code they import, and the tools pinned by the lockfile.
const COMMON = ["package.json", "package-lock.json", "tsconfig.json", "scripts", "src"];

/**
 * The steps in order. A step lists as inputs only what earlier steps (or sources) write: an input
 * written by a later step would make it look changed at every start.
 */
export const STEPS: BuildStep[] = [
  {
    name: "contract",
    script: "build:contract",
    inputs: [...COMMON, "openapi", "redocly.yaml"],
    outputs: ["generated/openapi.json", "generated/openapi.yaml"],
  },
  {
    name: "asyncapi",
    script: "build:asyncapi",
    inputs: [...COMMON, "asyncapi"],
    outputs: ["generated/asyncapi.json", "generated/asyncapi.yaml", "generated/webhook-events.ts"],
  },
  {
    name: "arazzo",
    script: "build:arazzo",
    inputs: [...COMMON, "arazzo"],
    outputs: ["generated/arazzo.json"],
  },
  {
    name: "client",
    script: "generate",
    inputs: [...COMMON, "generated/openapi.json"],
    outputs: [
      "generated/types.ts",
      "generated/operations.ts",
      "generated/manifest.json",
      "generated/README.md",
    ],
  },
  {
    name: "sandbox-control",
    script: "build:sandbox",
    inputs: [...COMMON, "openapi-sandbox"],
    outputs: ["generated/sandbox-control.json", "generated/sandbox-control-types.ts"],
  },
  {
    name: "conformance",
    script: "build:conformance",
    inputs: [
      ...COMMON,
      "conformance",
      // The split sources, for where each part of the bundles is written (contract-sources.js).
      "openapi",
      "asyncapi",
      "generated/openapi.json",
      "generated/asyncapi.json",
      "generated/webhook-events.ts",
      "generated/types.ts",
      "generated/operations.ts",
      "generated/sandbox-control.json",
      "generated/sandbox-control-types.ts",
    ],
    outputs: [
      "generated/conformance-validators.js",
      "generated/webhook-validators.ts",
      "generated/coverage-index.js",
      "vectors/receiver.json",
      "generated/contract-sources.js",
    ],
  },
  {
    name: "package",
    script: "build",
    // It builds the docs site into dist/site too, for the packaged sandbox's /docs/.
    inputs: [
      ...COMMON,
      "tsconfig.build.json",
      "conformance",
      "mock",
      "sandbox",
      "generated",
      "docs",
      "CHANGELOG.md",
      "README.md",
      "openapi",
      "asyncapi",
      "arazzo",
      "examples",
    ],
    outputs: ["dist"],
  },
  {
    name: "docs",
    script: "docs",
    inputs: [
      ...COMMON,
      "docs",
      "CHANGELOG.md",
      "README.md",
      "generated",
      "openapi",
      "asyncapi",
      "arazzo",
      "examples",
    ],
    outputs: ["build/docs"],
  },
];
