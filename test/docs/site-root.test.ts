// The site is built for the path it is served under: "/" by `npm run docs`, "/docs/" in the package,
// whose sandbox serves it there. Its pages link relatively; the 404 page, answered at any depth, from
// that root.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildSite, DEFAULT_BUILD } from "../../scripts/docs/build-site.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The root-relative links (href and src) of the 404 page of a site built for this root. */
async function notFoundLinks(root?: string): Promise<string[]> {
  const outDir = mkdtempSync(join(tmpdir(), "idv-site-root-"));
  dirs.push(outDir);
  await buildSite({ ...DEFAULT_BUILD, outDir, ...(root === undefined ? {} : { root }) });
  const page = readFileSync(join(outDir, "404.html"), "utf8");
  return [...page.matchAll(/(?:href|src)="(\/[^"]*)"/g)].map(([, link]) => link ?? "");
}

describe("the 404 page's links", () => {
  it("start at /docs/ in the site the package ships", async () => {
    const links = await notFoundLinks("/docs/");
    expect(links).toContain("/docs/index.html");
    expect(links).toContain("/docs/api.html");
    expect(links.filter((link) => !link.startsWith("/docs/"))).toEqual([]);
  }, 60_000);

  it("start at / in the site npm run docs builds", async () => {
    const links = await notFoundLinks();
    expect(links).toContain("/index.html");
    expect(links.filter((link) => link.startsWith("/docs/"))).toEqual([]);
  }, 60_000);
});
