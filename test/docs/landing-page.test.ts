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

  it("runs only the package's own commands, Prism named by its package, and npm scripts that exist", () => {
    const bins = Object.keys(packageJson.bin);
    const npx = [...landing.matchAll(/npx ([@\w/.-]+)/g)].map((m) => m[1] ?? "");
    expect(npx).toEqual(expect.arrayContaining(["idv-sandbox", "idv-conformance"]));
    for (const name of npx) expect([...bins, "@stoplight/prism-cli"], `npx ${name}`).toContain(name);
    // Prism is not a dependency of the package: the page says to install it before running it.
    expect(landing.indexOf("npm install --save-dev @stoplight/prism-cli")).toBeGreaterThan(-1);
    expect(landing.indexOf("npm install --save-dev @stoplight/prism-cli")).toBeLessThan(
      landing.indexOf("npx @stoplight/prism-cli"),
    );
    for (const [, script] of landing.matchAll(/npm run ([a-z:-]+)/g))
      expect(packageJson.scripts, `npm run ${script}`).toHaveProperty([script ?? ""]);
  });
});

describe("the landing page on npm start", () => {
  const serve = readFileSync(fromRoot("sandbox/serve-with-docs.ts"), "utf8");
  /** The default port serve-with-docs.ts gives a server, from its parsePort(…, default, "VAR") call. */
  const defaultPort = (variable: string): string => {
    const port = new RegExp(`parsePort\\(process\\.env\\.${variable}, (\\d+), "${variable}"\\)`).exec(
      serve,
    )?.[1];
    if (!port) throw new Error(`sandbox/serve-with-docs.ts has no default for ${variable}`);
    return port;
  };
  const rows = [...landing.matchAll(/<tr><td><code>(\d+)<\/code><\/td><td>([^<]+)<\/td>[\s\S]*?<\/tr>/g)].map(
    (m) => [m[1], m[2], m[0]] as const,
  );

  it("says which server answers on which port, as npm start serves them", () => {
    expect(packageJson.scripts.start).toContain("serve-with-docs.js");
    expect(rows.map(([port, server]) => [port, server])).toEqual([
      [defaultPort("SANDBOX_PORT"), "The sandbox"],
      [defaultPort("DOCS_PORT"), "The docs site"],
    ]);
    expect(rows[0]?.[2]).toContain("SANDBOX_PORT");
    expect(rows[1]?.[2]).toContain("DOCS_PORT");
  });

  it("never calls the sandbox's port the mock's", () => {
    const sandboxPort = defaultPort("SANDBOX_PORT");
    for (const [, block] of landing.matchAll(/<pre class="code"><code>([\s\S]*?)<\/code><\/pre>/g)) {
      if (/mock/.test(block ?? "")) expect(block).not.toContain(`:${sandboxPort}`);
    }
  });
});
