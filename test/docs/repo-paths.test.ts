// The map stays true: every repository path that ARCHITECTURE.md, a README or a decision record
// cites in backticks, and every relative link they make, exists. A path is read from the repository
// root when it starts with a tracked top-level folder (`sandbox/clock.ts`), else from the document's
// own folder when its first step is there (`checks/` in conformance/README.md); a bare source file
// name (`walk.ts`) must name some tracked file. Code blocks, URLs, globs, placeholders and build
// output (`build/`, `dist/`, site pages) are not checked.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";

const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
  .split("\0")
  .filter(Boolean);
const TOP = new Set(tracked.filter((f) => f.includes("/")).map((f) => f.slice(0, f.indexOf("/"))));
const BASENAMES = new Set(tracked.map((f) => basename(f)));
const SOURCE = /^[\w-][\w.-]*\.(ts|mts|mjs)$/;

/** The documents that map the tree. */
const DOCUMENTS = [
  "ARCHITECTURE.md",
  ...tracked.filter((f) => basename(f) === "README.md" && !f.startsWith("test/fixtures/")),
  ...tracked.filter((f) => /^docs\/decisions\/[^/]+\.md$/.test(f)),
];

/** The text outside fenced code blocks. */
const prose = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");

/** The paths a document cites that do not exist: "`path`" for a code span, "link target" for a link. */
function missingPaths(document: string, text: string): string[] {
  const here = dirname(document);
  const missing: string[] = [];
  const body = prose(text);
  for (const [, token = ""] of body.matchAll(/`([^`\n]+)`/g)) {
    if (!/^[\w.-]+(\/[\w.-]+)*\/?$/.test(token) || token.startsWith("idv-contract")) continue;
    const first = token.split("/")[0]!;
    // From the root: a path under a tracked top-level folder.
    if (token.includes("/") && TOP.has(first)) {
      if (!existsSync(fromRoot(token))) missing.push(`\`${token}\``);
      // From the document's folder: a path whose first step is there (`checks/README.md`).
    } else if (token.includes("/") && here !== "." && first !== ".." && existsSync(fromRoot(here, first))) {
      if (!existsSync(fromRoot(here, token))) missing.push(`\`${token}\``);
      // A bare source file name: in the document's folder, or some tracked file of that name.
    } else if (!token.includes("/") && SOURCE.test(token)) {
      if (!existsSync(fromRoot(here, token)) && !BASENAMES.has(token)) missing.push(`\`${token}\``);
    }
  }
  for (const [, target = ""] of body.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(target)) continue;
    const path = decodeURIComponent(target.replace(/#.*$/, ""));
    if (path && !existsSync(fromRoot(here, path))) missing.push(`link ${target}`);
  }
  return missing;
}

describe("paths cited by the map", () => {
  it("finds a missing path, a missing bare name and a broken link (the check can fail)", () => {
    const text = [
      "`src/contract/json.ts` `src/nowhere.ts` `walk.ts` `gone-away.ts` `checks/README.md` `checks/gone.ts`",
      "[x](nothing.md) [y](README.md) [z](checks/README.md#top)",
      "```\n`src/in-code.ts`\n```",
      "`application/json` `node:fs` `idv-contract/arazzo/x.yaml` `build/stamps/` `api.html` `.js`",
    ].join("\n");
    expect(missingPaths("conformance/README.md", text)).toEqual([
      "`src/nowhere.ts`",
      "`gone-away.ts`",
      "`checks/gone.ts`",
      "link nothing.md",
    ]);
  });

  it("reads ARCHITECTURE.md, the folder READMEs and the decision records", () => {
    for (const doc of ["ARCHITECTURE.md", "README.md", "docs/decisions/client.md", "conformance/README.md"])
      expect(DOCUMENTS).toContain(doc);
  });

  for (const document of DOCUMENTS)
    it(`${document}: every cited path exists`, () => {
      const text = existsSync(fromRoot(document)) ? readFileSync(fromRoot(document), "utf8") : "";
      expect(text, `${document} exists`).not.toBe("");
      expect(missingPaths(document, text)).toEqual([]);
    });
});
