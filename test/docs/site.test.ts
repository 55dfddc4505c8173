/**
 * The docs site as a reader sees it: built from the contracts, served from 127.0.0.1 and loaded
 * in Debian's Chromium. Every operation, every webhook event, the lifecycle diagram and every gap
 * must be on the pages, with no console error and no request leaving localhost.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite, DEFAULT_BUILD } from "../../scripts/docs/build-site.js";
import { collectGaps } from "../../scripts/docs/gaps.js";
import { listen, type RunningServer } from "../../src/server/static-files.js";
import { listMessages } from "../../scripts/docs/webhooks-page.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { HTTP_METHODS, type Json } from "../support/contract.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = fromRoot("artifacts/docs");
/** The interface document's events: seven biometric, the EDD one and the workflow one. */
const DOCUMENT_EVENTS = [
  "created",
  "completed",
  "updated",
  "archived",
  "error",
  "pending",
  "test",
  "case_completed",
  "case.completed",
];
/** The biometric verification states of the document's state table, and the completed statuses. */
const LIFECYCLE_STATES = ["created", "pending", "completed", "pass", "review", "fail", "archived", "error"];

const normalise = (text: string): string => text.replace(/\s+/g, " ").trim();

let outDir: string;
/** The contracts as they were when the site was built: generated/ may change while the test runs. */
let openapi: Json;
let asyncapi: Json;
let server: RunningServer | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
const leftLocalhost: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: install it with \`apt-get install -y chromium\``,
    );
  }
  if (!existsSync(DEFAULT_BUILD.asyncapiPath)) {
    throw new Error("generated/asyncapi.json is missing: the webhooks page would list no events");
  }
  outDir = mkdtempSync(join(tmpdir(), "idv-docs-site-"));
  const openapiText = readFileSync(DEFAULT_BUILD.openapiPath, "utf8");
  const asyncapiText = readFileSync(DEFAULT_BUILD.asyncapiPath, "utf8");
  openapi = JSON.parse(openapiText);
  asyncapi = JSON.parse(asyncapiText);
  const contracts = join(outDir, "contracts");
  mkdirSync(contracts);
  writeFileSync(join(contracts, "openapi.json"), openapiText);
  writeFileSync(join(contracts, "asyncapi.json"), asyncapiText);
  const site = join(outDir, "site");
  await buildSite({
    outDir: site,
    openapiPath: join(contracts, "openapi.json"),
    asyncapiPath: join(contracts, "asyncapi.json"),
  });
  server = await listen(site, 0);
  const origin = new URL(server.url).origin;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Every request goes through here: the site's own origin continues, anything else is recorded and aborted.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    leftLocalhost.push(url);
    return route.abort();
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
  await server?.close().catch(() => {});
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Open a page of the site, recording console errors and uncaught exceptions. */
async function open(file: string): Promise<{ page: Page; errors: string[] }> {
  if (!context || !server) throw new Error("the browser or the server did not start");
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  const response = await page.goto(new URL(file, server.url).href, { waitUntil: "load" });
  expect(response?.status(), `${file} status`).toBe(200);
  return { page, errors };
}

/** What a reader sees: innerText skips hidden nodes, which is the point here. */
// The rendered text is what is asserted.
const text = (page: Page): Promise<string> => page.evaluate(() => document.body.innerText);

/** Wait until the page shows every expected text; answer the ones still missing after the timeout. */
async function waitForTexts(page: Page, expected: string[], timeoutMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await text(page);
    const missing = expected.filter((t) => !body.includes(t));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await page.waitForTimeout(250);
  }
}

/** Operations and webhooks of the OpenAPI contract, with their tags. */
function contractOperations(
  openapi: Json,
): { label: string; summary: string; path?: string; tags: string[] }[] {
  const out = [];
  for (const [section, isWebhook] of [
    ["paths", false],
    ["webhooks", true],
  ] as const) {
    for (const [path, item] of Object.entries<Json>(openapi[section] ?? {})) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        out.push({
          label: `${method.toUpperCase()} ${path} (${op.operationId})`,
          summary: String(op.summary),
          ...(isWebhook ? {} : { path }),
          tags: op.tags ?? [],
        });
      }
    }
  }
  return out;
}

describe("the docs site in Chromium", { timeout: 120_000 }, () => {
  it("landing page: quick start, both authentication schemes, both error shapes, the lifecycle diagram", async () => {
    const { page, errors } = await open("index.html");
    const body = await text(page);
    for (const snippet of ["createClient", "npm run mock", "npm run conformance", "parseWebhook"]) {
      expect(body, `quick start mentions ${snippet}`).toContain(snippet);
    }
    const headerSchemes = Object.values<Json>(openapi.components.securitySchemes).filter(
      (s) => s.type === "apiKey",
    );
    expect(headerSchemes.length).toBe(4);
    for (const scheme of headerSchemes) {
      expect(body, `authentication shows the ${scheme.name} header`).toContain(scheme.name);
    }
    expect(body).toContain("ManualVerificationError");
    expect(body).toContain("ServiceError");

    const svg = page.locator("figure svg");
    await expect.poll(() => svg.count()).toBe(1);
    expect(await svg.isVisible()).toBe(true);
    const labels = (await svg.locator("text").allTextContents()).map(normalise);
    for (const state of LIFECYCLE_STATES)
      expect(labels, `the diagram has the state ${state}`).toContain(state);
    for (const event of DOCUMENT_EVENTS.slice(0, 6)) {
      expect(labels, `the diagram names the event ${event}`).toContain(`event: ${event}`);
    }

    await page.screenshot({ path: join(ARTIFACTS, "index.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(leftLocalhost).toEqual([]);
    await page.close();
  });

  it("API reference: every operation and webhook of the OpenAPI contract", async () => {
    const operations = contractOperations(openapi);
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const { page, errors } = await open("api.html");
    await expect.poll(() => text(page), { timeout: 30_000 }).toContain(openapi.info.title);
    await page.screenshot({ path: join(ARTIFACTS, "api.png") });

    // Redoc shows one tag at a time: open each from the sidebar as a reader would.
    const tags = [...new Set(operations.flatMap((op) => op.tags))];
    const missing: string[] = [];
    for (const tag of tags) {
      await page.getByRole("link", { name: tag, exact: true }).first().click({ timeout: 15_000 });
      const expected = operations
        .filter((op) => op.tags.includes(tag))
        .flatMap((op) => [op.summary, ...(op.path ? [op.path] : [])]);
      missing.push(...(await waitForTexts(page, expected)).map((t) => `${tag}: ${t}`));
    }
    expect(missing).toEqual([]);
    const untagged = operations.filter((op) => op.tags.length === 0).map((op) => op.label);
    expect(untagged, "operations without a tag, which Redoc would not list under one").toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "api-tag.png") });
    expect(errors).toEqual([]);
    expect(leftLocalhost).toEqual([]);
    await page.close();
  });

  it("webhooks page: every event of the AsyncAPI contract and of the interface document", async () => {
    const { page, errors } = await open("webhooks.html");
    const headings = (await page.locator("article.message h3 code").allTextContents()).map(normalise);
    const contractEvents = listMessages(asyncapi).map((m) => m.name);
    expect(contractEvents.length).toBeGreaterThanOrEqual(DOCUMENT_EVENTS.length);
    for (const event of new Set([...DOCUMENT_EVENTS, ...contractEvents])) {
      expect(headings, `an event section for ${event}`).toContain(event);
    }
    const body = normalise(await text(page));
    for (const [id, channel] of Object.entries<Json>(asyncapi.channels)) {
      expect(body, `channel ${id}`).toContain(normalise(channel.title ?? id));
    }
    for (const name of Object.keys(asyncapi.components?.securitySchemes ?? {})) {
      expect(body, `security scheme ${name}`).toContain(name);
    }
    await page.screenshot({ path: join(ARTIFACTS, "webhooks.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(leftLocalhost).toEqual([]);
    await page.close();
  });

  it("gaps page: every x-gap of both contracts, with the document's words and the choice", async () => {
    const marks = [...collectGaps(openapi), ...collectGaps(asyncapi)];
    expect(marks.length).toBeGreaterThan(0);
    const { page, errors } = await open("gaps.html");
    const body = normalise(await text(page));
    const missing = marks.flatMap((mark) =>
      [mark.quote, mark.choice, mark.pointer]
        .filter((part) => !body.includes(normalise(part)))
        .map((part) => `${mark.pointer}: ${part}`),
    );
    expect(missing).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "gaps.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(leftLocalhost).toEqual([]);
    await page.close();
  });

  it("no request left localhost", () => {
    // Runs last: every page above has loaded by now.
    expect(leftLocalhost).toEqual([]);
  });
});
