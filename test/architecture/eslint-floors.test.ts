// The floors of the tree are a lint rule (eslint.config.js): an import that climbs from src/ into the
// folders built on it, or from one of mock/, sandbox/, conformance/ into a sibling, scripts/ or bench/,
// fails `npm run lint`. Linted here through ESLint's own API, as `npx eslint` reads the config.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const eslint = new ESLint({ cwd: fromRoot(".") });

/** The floor findings of a text as if it were the file at `path`. */
async function floorFindings(path: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: fromRoot(path) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-syntax")
    .map((m) => m.message);
}

describe("the floors", () => {
  it.each([
    [
      "src/server/a.ts",
      'import { x } from "../../conformance/checks/contract-model.js";\nexport const y = x;\n',
      "src/",
    ],
    ["src/a.ts", 'import type { X } from "../mock/server.js";\nexport type Y = X;\n', "src/"],
    ["src/contract/a.ts", 'export { x } from "../../scripts/lib/paths.js";\n', "src/"],
    ["src/a.ts", 'export const load = () => import("../bench/run.js");\n', "src/"],
    ["src/a.ts", 'export type S = typeof import("../sandbox/index.js");\n', "src/"],
    ["mock/a.ts", 'import { x } from "../sandbox/server.js";\nexport const y = x;\n', "mock/"],
    [
      "sandbox/products/a.ts",
      'import type { X } from "../../conformance/index.js";\nexport type Y = X;\n',
      "sandbox/",
    ],
    [
      "conformance/probe/a.ts",
      'import { x } from "../../mock/server.js";\nexport const y = x;\n',
      "conformance/",
    ],
    [
      "conformance/a.ts",
      'import { x } from "../scripts/lib/paths.js";\nexport const y = x;\n',
      "conformance/",
    ],
  ])("refuses %s importing upward or sideways", async (path, text, floor) => {
    const findings = await floorFindings(path, text);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toContain(`${floor} may not import from`);
  });

  it.each([
    ["src/server/a.ts", 'import { x } from "../contract/operations.js";\nexport const y = x;\n'],
    ["mock/a.ts", 'import { x } from "../src/server/index.js";\nexport const y = x;\n'],
    [
      "sandbox/a.ts",
      'import x from "../generated/sandbox-control.json" with { type: "json" };\nexport const y = x;\n',
    ],
    ["conformance/checks/a.ts", 'import type { X } from "./contract-model.js";\nexport type Y = X;\n'],
    ["scripts/a.ts", 'import { x } from "../conformance/index.js";\nexport const y = x;\n'],
    ["test/a.test.ts", 'import { x } from "../mock/server.js";\nexport const y = x;\n'],
  ])("lets %s import its own floor and those below", async (path, text) => {
    expect(await floorFindings(path, text)).toEqual([]);
  });
});
