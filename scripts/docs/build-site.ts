import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedNotice } from "../lib/generated-header.js";
import { fromRoot } from "../lib/paths.js";
import { buildApiReference } from "./api-reference.js";
import { collectGaps, type GapMark } from "./gaps.js";
import { renderGapsContent } from "./gaps-page.js";
import { escapeHtml } from "./html.js";
import type { Json } from "../lib/json-ref.js";
import { operationsOf, renderAuthentication, renderErrorShapes } from "./landing-facts.js";
import { fillTemplate, readSiteSource, renderPage } from "./layout.js";
import { renderDiagram } from "./lifecycle-diagram.js";
import { findExternalLoads } from "./offline.js";
import { renderWebhooksContent } from "./webhooks-page.js";

export interface BuildOptions {
  outDir: string;
  openapiPath: string;
  asyncapiPath: string;
}

export interface BuildResult {
  files: string[];
  operations: number;
  gaps: { openapi: number; asyncapi: number | null };
  /** Set when the AsyncAPI bundle is missing: the webhooks page then says so instead of failing. */
  warning?: string;
}

/** Where `npm run docs` reads the contracts and writes the site. */
export const DEFAULT_BUILD: BuildOptions = {
  outDir: fromRoot("build/docs"),
  openapiPath: fromRoot("generated/openapi.json"),
  asyncapiPath: fromRoot("generated/asyncapi.json"),
};

/** Static files copied from docs/site/ into assets/. */
const ASSETS = ["style.css", "redocly-logo.svg"];

const NOTICE = generatedNotice("docs/site/ and generated/*.json", "npm run docs");

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

/** Build the whole site (index, api, webhooks, gaps and assets) into outDir. */
export async function buildSite(options: BuildOptions = DEFAULT_BUILD): Promise<BuildResult> {
  const openapi = readJson(options.openapiPath, "The OpenAPI bundle");
  const asyncapi = existsSync(options.asyncapiPath)
    ? readJson(options.asyncapiPath, "The AsyncAPI bundle")
    : null;
  const files: Record<string, string> = {};

  const openapiGaps = collectGaps(openapi);
  let asyncapiGaps: GapMark[] | null = null;
  let webhooks: string;
  if (asyncapi) {
    asyncapiGaps = collectGaps(asyncapi);
    try {
      webhooks = renderWebhooksContent(asyncapi);
    } catch (error) {
      throw new Error(`${options.asyncapiPath}: ${(error as Error).message}`, { cause: error });
    }
  } else {
    webhooks = `<h1>Webhooks</h1><p class="notice">The AsyncAPI bundle <code>generated/asyncapi.json</code> does not exist yet, so the webhook events cannot be listed. Build the contract and run <code>npm run docs</code> again.</p>`;
  }

  const operations = operationsOf(openapi).length;
  const lifecycle = await renderDiagram(readSiteSource("lifecycle.dot"), "Biometric verification lifecycle");
  const landing = fillTemplate(
    readSiteSource("index.html").replace(/^<!--[\s\S]*?-->\s*/, ""),
    {
      operationCount: String(operations),
      gapCount: String(openapiGaps.length + (asyncapiGaps?.length ?? 0)),
      authentication: renderAuthentication(openapi),
      errors: renderErrorShapes(openapi),
      lifecycle,
    },
    "docs/site/index.html",
  );

  files["index.html"] = renderPage({
    file: "index.html",
    title: "Overview",
    content: landing,
    notice: NOTICE,
  });
  files["webhooks.html"] = renderPage({
    file: "webhooks.html",
    title: "Webhooks",
    content: webhooks,
    notice: NOTICE,
  });
  files["gaps.html"] = renderPage({
    file: "gaps.html",
    title: "Gaps",
    notice: NOTICE,
    content: renderGapsContent([
      { title: "HTTP API (OpenAPI)", file: "generated/openapi.json", marks: openapiGaps },
      { title: "Webhooks (AsyncAPI)", file: "generated/asyncapi.json", marks: asyncapiGaps },
    ]),
  });
  files["api.html"] = buildApiReference(options.openapiPath)
    .replace(/^(<!DOCTYPE html>)/i, `$1\n<!-- ${escapeHtml(NOTICE)} -->`)
    // An empty icon stops the browser asking the server for /favicon.ico (a 404 in the console).
    .replace(/<head>/i, '<head>\n  <link rel="icon" href="data:,">');
  files["assets/lifecycle.svg"] = `<!-- ${escapeHtml(NOTICE)} -->\n${lifecycle}\n`;
  for (const asset of ASSETS) files[`assets/${asset}`] = readSiteSource(asset);

  // api.html was checked by buildApiReference, with the rewrite to add when it fails.
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith(".html") && name !== "api.html") {
      const loads = findExternalLoads(content);
      if (loads.length)
        throw new Error(`${name} would load ${loads.map((l) => l.url).join(", ")} from the network`);
    }
  }
  mkdirSync(join(options.outDir, "assets"), { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(options.outDir, name), content);

  return {
    files: Object.keys(files),
    operations,
    gaps: { openapi: openapiGaps.length, asyncapi: asyncapiGaps?.length ?? null },
    ...(asyncapi
      ? {}
      : { warning: `${options.asyncapiPath} not found: webhooks.html says so and lists no events` }),
  };
}
