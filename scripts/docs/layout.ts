import { readFileSync } from "node:fs";
import { fromRoot } from "../lib/paths.js";
import { escapeHtml, scrollableTables } from "./html.js";

/** One page of the site as the navigation lists it. */
export interface SitePage {
  file: string;
  label: string;
  /** "main" pages sit in the top bar, guides in the row under it, journeys in the row under that. */
  group: "main" | "guide" | "journey";
}

/** The site's own pages, in navigation order; the guides are added as docs/*.md provides them. */
export const MAIN_PAGES: readonly SitePage[] = [
  { file: "index.html", label: "Overview", group: "main" },
  { file: "api.html", label: "API reference", group: "main" },
  { file: "webhooks.html", label: "Webhooks", group: "main" },
  { file: "gaps.html", label: "Gaps", group: "main" },
  { file: "changelog.html", label: "Changelog", group: "main" },
];

/** Fill `{{name}}` placeholders; a placeholder without a value is an error, not a blank. */
export function fillTemplate(template: string, values: Record<string, string>, source: string): string {
  const known = new Map(Object.entries(values));
  return template.replace(/\{\{\s*([a-zA-Z0-9_-]+)\s*\}\}/g, (_all, name: string) => {
    const value = known.get(name);
    if (value === undefined) throw new Error(`${source}: no value for the placeholder {{${name}}}`);
    return value;
  });
}

/** Read a hand-written source of the site from docs/site/. */
export function readSiteSource(name: string): string {
  return readFileSync(fromRoot("docs/site", name), "utf8");
}

/**
 * The site header (docs/site/header.html): the pages, the guides and the search box, the current
 * page marked. `root` prefixes every link: "" on pages at the site's top, "/" on the 404 page,
 * which a server may answer at any depth.
 */
export function renderHeader(pages: readonly SitePage[], current: string, root = ""): string {
  const link = (page: SitePage): string =>
    `<a href="${escapeHtml(root + page.file)}"${page.file === current ? ' aria-current="page"' : ""}>${escapeHtml(page.label)}</a>`;
  return fillTemplate(
    readSiteSource("header.html"),
    {
      root: escapeHtml(root),
      nav: pages
        .filter((p) => p.group === "main")
        .map(link)
        .join("\n      "),
      guides: pages
        .filter((p) => p.group === "guide")
        .map(link)
        .join("\n    "),
      journeys: pages
        .filter((p) => p.group === "journey")
        .map(link)
        .join("\n    "),
    },
    "docs/site/header.html",
  );
}

/** Wrap a page's content in the site's shell (docs/site/layout.html) with the header; tables scroll in place. */
export function renderPage(options: {
  file: string;
  title: string;
  content: string;
  notice: string;
  pages: readonly SitePage[];
  root?: string;
}): string {
  const root = options.root ?? "";
  return fillTemplate(
    readSiteSource("layout.html"),
    {
      title: escapeHtml(options.title),
      root: escapeHtml(root),
      header: renderHeader(options.pages, options.file, root),
      content: scrollableTables(options.content),
      notice: escapeHtml(options.notice),
    },
    "docs/site/layout.html",
  );
}
