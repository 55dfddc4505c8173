/**
 * Client generators other than the project's generate a client from generated/openapi.json, and
 * the project's TypeScript (strict) accepts what they wrote. The generators need Node.js 22.18 or
 * newer, so they run on the Node 24 binary that test:node-lines caches; they are pinned by
 * test/generators/tools/package-lock.json and installed on first use into that cache. A missing
 * Node 24 or a failed install fails the test: nothing is skipped. docs/other-tools.md lists them.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { GENERATED_CLIENT_OPTIONS } from "./compiler-options.js";
import { nodeBinary, pinnedTools } from "../support/node-binary.js";
import { runPinned } from "../support/pinned-run.js";

const NODE_24 = "24.21.0";
const BUNDLE = fromRoot("generated/openapi.json");

let node: string;
let tools: string;
let work: string;

beforeAll(() => {
  node = nodeBinary(NODE_24);
  tools = pinnedTools(fromRoot("test/generators/tools"), "generators", node);
  work = mkdtempSync(join(tmpdir(), "idv-generators-"));
}, 900_000);

/** The script a package names as its bin, inside the tools' install. */
function bin(pkg: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(tools, "node_modules", pkg, "package.json"), "utf8")) as {
    bin: string | Record<string, string>;
  };
  const path = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[name];
  if (!path) throw new Error(`${pkg} names no bin ${name}`);
  return join(tools, "node_modules", pkg, path);
}

const version = (pkg: string): string =>
  (JSON.parse(readFileSync(join(tools, "node_modules", pkg, "package.json"), "utf8")) as { version: string })
    .version;

/** Type-check a folder of generated TypeScript with the project's compiler, strict. */
function typeCheck(dir: string): { status: number | null; output: string } {
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: GENERATED_CLIENT_OPTIONS,
      include: ["**/*.ts"],
    }),
  );
  const run = spawnSync(process.execPath, [fromRoot("node_modules/typescript/bin/tsc"), "-p", dir], {
    encoding: "utf8",
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The operation ids of the bundle. */
function operationIds(): string[] {
  const doc = JSON.parse(readFileSync(BUNDLE, "utf8")) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  return Object.values(doc.paths).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      op && typeof op === "object" && op.operationId ? [op.operationId] : [],
    ),
  );
}

const orvalConfig = (out: string, bundle = BUNDLE): string => {
  const file = join(out, "orval.config.cjs");
  writeFileSync(
    file,
    `module.exports = ${JSON.stringify({
      idv: {
        input: { target: bundle },
        output: { target: join(out, "client.ts"), client: "fetch", mode: "single", prettier: false },
      },
    })};\n`,
  );
  return file;
};

const GENERATORS: { name: string; pkg: string; generate: (out: string) => ReturnType<typeof runPinned> }[] = [
  {
    name: "@hey-api/openapi-ts",
    pkg: "@hey-api/openapi-ts",
    generate: (out) => runPinned(node, bin("@hey-api/openapi-ts", "openapi-ts"), ["-i", BUNDLE, "-o", out]),
  },
  {
    name: "orval",
    pkg: "orval",
    generate: (out) => runPinned(node, bin("orval", "orval"), ["--config", orvalConfig(out)]),
  },
  {
    name: "orval 7",
    pkg: "orval-7",
    generate: (out) => runPinned(node, bin("orval-7", "orval"), ["--config", orvalConfig(out)]),
  },
];

describe("clients generated from the bundle by other generators", () => {
  for (const generator of GENERATORS)
    it(`${generator.name}: generates offline, and the result type-checks (strict)`, () => {
      const out = mkdtempSync(join(work, `${generator.pkg.replace(/\W+/g, "-")}-`));
      const run = generator.generate(out);
      expect(run.status, `${generator.name} ${version(generator.pkg)}:\n${run.stdout}\n${run.stderr}`).toBe(
        0,
      );
      expect(run.network).toEqual([]);
      const files = readdirSync(out, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".ts"));
      expect(files.length).toBeGreaterThan(0);
      const text = files.map((f) => readFileSync(join(out, f), "utf8")).join("\n");
      // Every operation of the contract reached the client.
      const missing = operationIds().filter((id) => !text.includes(id));
      expect(missing).toEqual([]);
      const check = typeCheck(out);
      expect(check.output).toBe("");
      expect(check.status).toBe(0);
    });

  it("orval 7 could not type the rows as additionalProperties described them (TS2411): the reason for patternProperties", () => {
    const out = mkdtempSync(join(work, "orval-7-before-"));
    const before = JSON.parse(readFileSync(BUNDLE, "utf8")) as {
      components: { schemas: Record<string, { properties: { rows: { items: Record<string, unknown> } } }> };
    };
    const items = before.components.schemas.DataSources?.properties.rows.items;
    if (!items) throw new Error("no DataSources rows in the bundle");
    delete items.patternProperties;
    items.additionalProperties = { anyOf: [{ $ref: "#/components/schemas/MatchResult" }, { type: "null" }] };
    const bundle = join(out, "openapi-before.json");
    writeFileSync(bundle, JSON.stringify(before));
    const run = runPinned(node, bin("orval-7", "orval"), ["--config", orvalConfig(out, bundle)]);
    expect(run.status, run.stderr).toBe(0);
    const check = typeCheck(out);
    expect(check.output).toMatch(/TS2411: Property 'summary_of_data_sources_searched'/);
  });

  it("the type check can fail: a property that does not fit an index signature is TS2411", () => {
    const out = mkdtempSync(join(work, "broken-"));
    writeFileSync(
      join(out, "row.ts"),
      "export interface Row { name?: string; [key: string]: 'Match' | null }\n",
    );
    const check = typeCheck(out);
    expect(check.status).not.toBe(0);
    expect(check.output).toContain("TS2411");
  });
});
