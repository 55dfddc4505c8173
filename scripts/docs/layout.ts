import { readFileSync } from "node:fs";
import { fromRoot } from "../lib/paths.js";
import { escapeHtml } from "./html.js";

/** The site's pages, in navigation order; api.html is Redocly's own page. */
const PAGES = [
  { file: "index.html", label: "Overview" },
  { file: "api.html", label: "API reference" },
  { file: "webhooks.html", label: "Webhooks" },
  { file: "gaps.html", label: "Gaps" },
] as const;

/** Fill `{{name}}` placeholders; a placeholder without a value is an error, not a blank. */
export function fillTemplate(template: string, values: Record<string, string>, source: string): string {
  return template.replace(/\{\{\s*([a-zA-Z0-9_-]+)\s*\}\}/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${source}: no value for the placeholder {{${name}}}`);
    return value;
  });
}

/** Read a hand-written source of the site from docs/site/. */
export function readSiteSource(name: string): string {
  return readFileSync(fromRoot("docs/site", name), "utf8");
}

/** Wrap a page's content in the site's shell (docs/site/layout.html) with the navigation. */
export function renderPage(options: {
  file: string;
  title: string;
  content: string;
  notice: string;
}): string {
  const nav = PAGES.map(
    (page) =>
      `<a href="${page.file}"${page.file === options.file ? ' aria-current="page"' : ""}>${escapeHtml(page.label)}</a>`,
  ).join("\n      ");
  return fillTemplate(
    readSiteSource("layout.html"),
    { title: escapeHtml(options.title), nav, content: options.content, notice: escapeHtml(options.notice) },
    "docs/site/layout.html",
  );
}
