import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json } from "../lib/json-ref.js";
import { runTool } from "../lib/run-tool.js";
import { findExternalLoads, localiseAssets } from "./offline.js";

/**
 * What the site adds to Redoc's page: its stylesheet for the header, the site script (search),
 * and a title that wraps between words on a phone (Redoc breaks "Verification" inside the word).
 */
const HEAD_ADDITIONS = `
  <link rel="icon" href="data:,">
  <meta name="color-scheme" content="light dark">
  <link rel="stylesheet" href="assets/header.css">
  <style>
    /* Redoc's own rules come later in the page, so these must be !important to apply. */
    [data-component-name="Typography/H1"] { overflow-wrap: normal !important; word-break: normal !important; hyphens: manual !important; }
    @media (max-width: 600px) { [data-component-name="Typography/H1"] { font-size: 1.7rem !important; line-height: 1.2 !important; } }
    /* A code sample's copy button sat over its first line: it gets a toolbar row of its own above the
       code, and the code keeps room at its right end, so no character is ever under the button or flush
       against the edge; long lines scroll sideways in the sample. */
    [data-component-name="CodeBlock/CodeBlockControls"] { position: static !important; display: flex !important; justify-content: flex-end !important; }
    [data-component-name="CodeBlock/CodeBlockContainer"] { overflow-x: auto !important; white-space: pre !important; padding-right: 20px !important; }
  </style>
  <script src="assets/site.js" defer></script>`;

/**
 * The OpenAPI reference page: Redocly's standalone page built from `document` (the docs build's
 * copy of the bundle) with its scripts inlined (`--inlineBundle`), its CDN asset URLs made local,
 * the site header put before Redoc's root, then checked for any remaining external load.
 */
export function buildApiReference(document: Json, header: string, title: string): string {
  const dir = mkdtempSync(join(tmpdir(), "idv-docs-"));
  try {
    const input = join(dir, "openapi.json");
    writeFileSync(input, JSON.stringify(document));
    const out = join(dir, "api.html");
    const result = runTool("redocly", [
      "build-docs",
      input,
      "--inlineBundle",
      "--output",
      out,
      "--title",
      title,
    ]);
    if (result.status !== 0) {
      throw new Error(
        `redocly build-docs failed on the reference bundle:\n${(result.stderr || result.stdout).trim()}`,
      );
    }
    const page = readFileSync(out, "utf8");
    // The first <head> and <body> are the page's own; later ones sit inside the inlined scripts.
    if (!/<head>/i.test(page) || !/^<body>/im.test(page)) {
      throw new Error(
        "redocly build-docs wrote a page without <head> or <body>; the site header has nowhere to go",
      );
    }
    const html = localiseAssets(page)
      .replace(/<head>/i, () => `<head>${HEAD_ADDITIONS}`)
      .replace(/^<body>/im, () => `<body>\n${header}`);
    const loads = findExternalLoads(html);
    if (loads.length > 0) {
      const list = loads.map((load) => `  ${load.url}  in  ${load.context.replace(/\s+/g, " ")}`).join("\n");
      throw new Error(
        `api.html would load from the network; add a rewrite in scripts/docs/offline.ts:\n${list}`,
      );
    }
    return html;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
