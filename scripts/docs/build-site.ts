import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROUTES_FILE } from "../../src/server/static-files.js";
import { generatedNotice } from "../lib/generated-header.js";
import type { Json } from "../lib/json-ref.js";
import { fromRoot } from "../lib/paths.js";
import { buildApiReference } from "./api-reference.js";
import { renderChangelog } from "./changelog-page.js";
import { referenceBundle } from "./code-samples.js";
import { collectGaps } from "./gaps.js";
import { type GapSource, groupGaps, renderGapsContent } from "./gaps-page.js";
import { type Guide, readGuides } from "./guides.js";
import { escapeHtml } from "./html.js";
import { operationsOf, renderAuthentication, renderErrorShapes } from "./landing-facts.js";
import {
  fillTemplate,
  MAIN_PAGES,
  readSiteSource,
  renderHeader,
  renderPage,
  type SitePage,
} from "./layout.js";
import { type Journey, readJourneys, renderJourney, renderJourneyList } from "./journeys.js";
import { renderDiagram } from "./lifecycle-diagram.js";
import { findExternalLoads } from "./offline.js";
import { referenceRoutePrefixes } from "./reference-links.js";
import { buildSearchIndex } from "./search-index.js";
import { listMessages, renderWebhooksContent } from "./webhooks-page.js";

export interface BuildOptions {
  outDir: string;
  openapiPath: string;
  asyncapiPath: string;
  /** The guides (docs/*.md) and CHANGELOG.md; the repository's own by default. */
  guidesDir?: string;
  changelogPath?: string;
  /** The Arazzo documents, one page per workflow; the repository's arazzo/ by default. */
  arazzoDir?: string;
  /** The path the site is served under, for the 404 page (answered at any depth): "/" by default. */
  root?: string;
}

export interface BuildResult {
  files: string[];
  operations: number;
  guides: string[];
  gaps: { openapi: number; asyncapi: number | null };
  /** Set when the AsyncAPI bundle is missing: the webhooks page then says so instead of failing. */
  warning?: string;
}

/** Where `npm run docs` reads the contracts and writes the site. */
export const DEFAULT_BUILD: BuildOptions = {
  outDir: fromRoot("build/docs"),
  openapiPath: fromRoot("generated/openapi.json"),
  asyncapiPath: fromRoot("generated/asyncapi.json"),
  guidesDir: fromRoot("docs"),
  changelogPath: fromRoot("CHANGELOG.md"),
};

/** Static files copied from docs/site/ into assets/. */
const ASSETS = ["style.css", "header.css", "site.js", "redocly-logo.svg"];

const NOTICE = generatedNotice("docs/site/, docs/*.md, CHANGELOG.md and generated/*.json", "npm run docs");

function readJson(path: string, what: string): Json {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(`${what} not found at ${path}; run \`npm run build:contract\` first`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** A guide's page: a table of contents of its sections, then the guide. */
function guideContent(guide: Guide): string {
  const sections = guide.headings.filter((h) => h.level === 2);
  const toc = sections.length
    ? `<nav class="guide-toc" aria-label="On this page"><strong>On this page</strong><ul>${sections
        .map((h) => `<li><a href="#${h.id}">${escapeHtml(h.text)}</a></li>`)
        .join("")}</ul></nav>`
    : "";
  return `<article class="guide">${toc}${guide.html}</article>`;
}

const notFound = (root: string): string => `<div class="not-found">
  <p class="code-404">404</p>
  <h1>This page is not part of the site</h1>
  <p>The address may be mistyped, or the page moved. The header above reaches every page, and the search finds
  guides, operations, webhook events and gaps.</p>
  <p><a href="${escapeHtml(root)}index.html">Back to the overview</a></p>
</div>`;

/** The webhooks page, or a notice saying why it lists no events. */
function webhooksContent(asyncapi: Json | null, path: string): string {
  if (!asyncapi)
    return `<h1>Webhooks</h1><p class="notice">The AsyncAPI bundle <code>generated/asyncapi.json</code> does not exist yet, so the webhook events cannot be listed. Build the contract and run <code>npm run docs</code> again.</p>`;
  try {
    return renderWebhooksContent(asyncapi);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The gaps of both contracts, as the gaps page and the search group them. */
function gapSourcesOf(openapi: Json, asyncapi: Json | null): GapSource[] {
  return [
    {
      title: "HTTP API (OpenAPI)",
      file: "generated/openapi.json",
      kind: "openapi",
      document: openapi,
      marks: collectGaps(openapi),
    },
    {
      title: "Webhooks (AsyncAPI)",
      file: "generated/asyncapi.json",
      kind: "asyncapi",
      document: asyncapi,
      marks: asyncapi ? collectGaps(asyncapi) : null,
    },
  ];
}

/** The landing page: docs/site/index.html with the contract's facts, the lifecycle and the journeys. */
function landingContent(openapi: Json, gaps: GapSource[], lifecycle: string, journeys: Journey[]): string {
  return fillTemplate(
    readSiteSource("index.html").replace(/^<!--[\s\S]*?-->\s*/, ""),
    {
      operationCount: String(operationsOf(openapi).length),
      gapCount: String(gaps.reduce((n, g) => n + (g.marks?.length ?? 0), 0)),
      authentication: renderAuthentication(openapi),
      errors: renderErrorShapes(openapi),
      lifecycle,
      journeys: renderJourneyList(journeys),
    },
    "docs/site/index.html",
  );
}

/** Refuse a page that would load anything from the network (api.html was checked as it was built). */
function checkOffline(files: Map<string, string>): void {
  for (const [name, content] of files) {
    if (!name.endsWith(".html") || name === "api.html") continue;
    const loads = findExternalLoads(content);
    if (loads.length)
      throw new Error(`${name} would load ${loads.map((l) => l.url).join(", ")} from the network`);
  }
}

/** Build the whole site (overview, reference, webhooks, gaps, journeys, guides, changelog, 404, search index) into outDir. */
export async function buildSite(options: BuildOptions = DEFAULT_BUILD): Promise<BuildResult> {
  const openapi = readJson(options.openapiPath, "The OpenAPI bundle");
  const asyncapi = existsSync(options.asyncapiPath)
    ? readJson(options.asyncapiPath, "The AsyncAPI bundle")
    : null;
  const journeys = readJourneys(options.arazzoDir ?? fromRoot("arazzo"));
  const journeyPages = new Map(
    [...journeys].reverse().flatMap((j) => [
      [j.source, j.page.file],
      [`${j.source}#${j.workflowId}`, j.page.file],
    ]),
  );
  const guides = readGuides(options.guidesDir ?? fromRoot("docs"), journeyPages);
  const changelogPath = options.changelogPath ?? fromRoot("CHANGELOG.md");
  const changelog = renderChangelog(existsSync(changelogPath) ? readFileSync(changelogPath, "utf8") : "");
  const siteRoot = options.root ?? "/";
  const pages: SitePage[] = [...MAIN_PAGES, ...guides.map((g) => g.page), ...journeys.map((j) => j.page)];
  const files = new Map<string, string>();
  const page = (file: string, title: string, content: string, root?: string): void => {
    files.set(file, renderPage({ file, title, content, notice: NOTICE, pages, ...(root ? { root } : {}) }));
  };

  // The pages.
  const gapSources = gapSourcesOf(openapi, asyncapi);
  const lifecycle = await renderDiagram(readSiteSource("lifecycle.dot"), "Biometric verification lifecycle");
  const events = asyncapi ? listMessages(asyncapi) : [];
  page("index.html", "Overview", landingContent(openapi, gapSources, lifecycle, journeys));
  page("webhooks.html", "Webhooks", webhooksContent(asyncapi, options.asyncapiPath));
  page("gaps.html", "Gaps", renderGapsContent(gapSources));
  page("changelog.html", "Changelog", changelog.html);
  for (const guide of guides) page(guide.page.file, guide.title, guideContent(guide));
  for (const journey of journeys)
    page(journey.page.file, `Journey: ${journey.workflowId}`, renderJourney(journey, openapi, events));
  // Answered at any depth by a server, so its links start at the site's root and its styles are inlined.
  files.set(
    "404.html",
    renderPage({
      file: "404.html",
      title: "Page not found",
      content: notFound(siteRoot),
      notice: NOTICE,
      pages,
      root: siteRoot,
    }).replace(
      /<link rel="stylesheet" href="[^"]*assets\/([\w.-]+\.css)">/g,
      (_all, name: string) => `<style>\n${readSiteSource(name)}\n</style>`,
    ),
  );
  files.set(
    "api.html",
    buildApiReference(
      referenceBundle(openapi),
      renderHeader(pages, "api.html"),
      "Identity Verification Service API reference",
    ).replace(/^(<!DOCTYPE html>)/i, `$1\n<!-- ${escapeHtml(NOTICE)} -->`),
  );

  // The assets, the search index and the reference's routes.
  files.set("assets/lifecycle.svg", `<!-- ${escapeHtml(NOTICE)} -->\n${lifecycle}\n`);
  for (const asset of ASSETS) files.set(`assets/${asset}`, readSiteSource(asset));
  const index = buildSearchIndex({
    openapi,
    guides,
    messages: events,
    gapGroups: gapSources.flatMap(groupGaps),
    changelog: changelog.headings,
    journeys,
  });
  files.set("assets/search-index.json", JSON.stringify(index));
  files.set(
    ROUTES_FILE,
    `${JSON.stringify({ page: "api.html", prefixes: referenceRoutePrefixes(openapi) }, null, 2)}\n`,
  );

  checkOffline(files);
  for (const [name, content] of files) {
    mkdirSync(dirname(join(options.outDir, name)), { recursive: true });
    writeFileSync(join(options.outDir, name), content);
  }
  const [openapiGaps, asyncapiGaps] = gapSources.map((g) => g.marks?.length ?? null);
  return {
    files: [...files.keys()],
    operations: operationsOf(openapi).length,
    guides: guides.map((g) => g.name),
    gaps: { openapi: openapiGaps ?? 0, asyncapi: asyncapiGaps ?? null },
    ...(asyncapi
      ? {}
      : { warning: `${options.asyncapiPath} not found: webhooks.html says so and lists no events` }),
  };
}
