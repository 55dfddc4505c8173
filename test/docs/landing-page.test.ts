import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";

const landing = readFileSync(fromRoot("docs/site/index.html"), "utf8");
const packageJson = JSON.parse(readFileSync(fromRoot("package.json"), "utf8"));

/** The source module behind a package entry point: "./dist/src/webhooks/index.js" → src/webhooks/index.ts. */
function sourceOf(specifier: string): string {
  const entry = specifier === "idv-contract" ? "." : `./${specifier.slice("idv-contract/".length)}`;
  const target = packageJson.exports?.[entry]?.default;
  if (typeof target !== "string")
    throw new Error(`package.json exports no "${entry}" (imported as ${specifier})`);
  return fromRoot(target.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));
}

describe("the landing page's quick start", () => {
  const imports = [...landing.matchAll(/import \{ ([^}]+) \} from "([^"]+)"/g)].map((m) => ({
    names: (m[1] ?? "").split(",").map((n) => n.trim()),
    from: m[2] ?? "",
  }));

  it("imports something from the package and from its webhooks entry point", () => {
    expect(imports.map((i) => i.from).sort()).toEqual(["idv-contract", "idv-contract/webhooks"]);
  });

  it.each(["idv-contract", "idv-contract/webhooks"])("names only real exports of %s", async (specifier) => {
    const module = await import(sourceOf(specifier));
    for (const { names } of imports.filter((i) => i.from === specifier)) {
      for (const name of names) expect(typeof module[name], `${specifier} exports ${name}`).toBe("function");
    }
  });

  it("runs only npm scripts that package.json defines", () => {
    const scripts = [...landing.matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1] ?? "");
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(packageJson.scripts, `npm run ${script}`).toHaveProperty([script]);
  });
});
