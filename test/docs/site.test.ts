/**
 * The docs site as a reader sees it: built from the contracts and guides, served from 127.0.0.1 by
 * the same server as `npm run docs:serve`, and driven in Debian's Chromium (one browser for the
 * file). Every page: the same navigation to every other page, the search, no console error, a
 * dark background under prefers-color-scheme: dark, a screenshot; and no request leaves the machine.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildResult, buildSite, DEFAULT_BUILD } from "../../scripts/docs/build-site.js";
import { operationSamples } from "../../scripts/docs/code-samples.js";
import { collectGaps } from "../../scripts/docs/gaps.js";
import { listMessages } from "../../scripts/docs/webhooks-page.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { listen, type RunningServer } from "../../src/server/static-files.js";
import { launchChromium } from "../support/chromium.js";
import { HTTP_METHODS, type Json } from "../support/contract.js";

/** Kept after the run (artifacts/ is ignored by git): one screenshot per page, light and dark. */
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
let built: BuildResult;
let changelogPath: string;
/** Every page of the site that the navigation lists, in its order. */
let pages: string[];
let server: RunningServer | undefined;
let browser: Browser | undefined;
let light: BrowserContext | undefined;
let dark: BrowserContext | undefined;
const leftLocalhost: string[] = [];

beforeAll(async () => {
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
  // The guides and the changelog too, for the same reason.
  const guides = join(outDir, "guides");
  mkdirSync(guides);
  for (const file of readdirSync(fromRoot("docs")).filter((f) => f.endsWith(".md"))) {
    copyFileSync(fromRoot("docs", file), join(guides, file));
  }
  changelogPath = join(outDir, "CHANGELOG.md");
  copyFileSync(fromRoot("CHANGELOG.md"), changelogPath);
  const site = join(outDir, "site");
  built = await buildSite({
    ...DEFAULT_BUILD,
    outDir: site,
    openapiPath: join(contracts, "openapi.json"),
    asyncapiPath: join(contracts, "asyncapi.json"),
    guidesDir: guides,
    changelogPath,
  });
  pages = built.files.filter((f) => f.endsWith(".html") && f !== "404.html");
  server = await listen(site, 0);
  const origin = new URL(server.url).origin;
  browser = await launchChromium();
  light = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
  dark = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
  for (const context of [light, dark]) {
    // Every request goes through here: the site's own origin continues, anything else is recorded and aborted.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      leftLocalhost.push(url);
      return route.abort();
    });
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  await server?.close().catch(() => {});
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Open a page of the site, recording console errors and uncaught exceptions. */
async function open(
  file: string,
  options: { context?: BrowserContext; status?: number } = {},
): Promise<{ page: Page; errors: string[] }> {
  const context = options.context ?? light;
  if (!context || !server) throw new Error("the browser or the server did not start");
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  const response = await page.goto(new URL(file, server.url).href, { waitUntil: "load" });
  expect(response?.status(), `${file} status`).toBe(options.status ?? 200);
  if (file.startsWith("api.html")) await waitForReference(page);
  return { page, errors };
}

/** Redoc renders after load: wait for its title. */
async function waitForReference(page: Page): Promise<void> {
  await expect.poll(() => text(page), { timeout: 30_000 }).toContain(String(openapi.info.title));
}

/** What a reader sees: innerText skips hidden nodes, which is the point here. */
const text = (page: Page): Promise<string> => page.evaluate(() => document.body.innerText);

/** Wait until the page shows every expected text; answer the ones still missing after the timeout. */
async function waitForTexts(page: Page, expected: string[], timeoutMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await text(page);
    const missing = expected.filter((t) => !body.includes(t));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await page.waitForTimeout(200);
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

/** The relative luminance (0 black … 1 white) of the first opaque background behind the page's middle. */
function backgroundLuminance(page: Page): Promise<number> {
  return page.evaluate(() => {
    const parse = (css: string): number[] | null => {
      const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(css);
      if (!m || (m[4] !== undefined && Number(m[4]) === 0)) return null;
      return [Number(m[1]), Number(m[2]), Number(m[3])];
    };
    const luminance = (rgb: number[]): number => {
      const [r, g, b] = rgb.map((c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    // The bottom-right corner: page background on every page (code blocks sit in the middle).
    let node: Element | null = document.elementFromPoint(innerWidth - 8, innerHeight - 8);
    for (; node; node = node.parentElement) {
      const rgb = parse(getComputedStyle(node).backgroundColor);
      if (rgb) return luminance(rgb);
    }
    // Below a short page: the canvas, painted with the body's background (CSS propagates it there).
    const canvas = parse(getComputedStyle(document.body).backgroundColor);
    if (canvas) return luminance(canvas);
    return 1; // Nothing painted: the browser's canvas, white.
  });
}

/** The header's links as the page resolves them. */
const headerLinks = (page: Page): Promise<string[]> =>
  page
    .locator("header.site-header a")
    .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));

describe("the docs site in Chromium", { timeout: 180_000 }, () => {
  it("every page: the same navigation to every page, a working search box, no console error, a screenshot", async () => {
    expect(pages).toEqual(
      expect.arrayContaining([
        "index.html",
        "api.html",
        "webhooks.html",
        "gaps.html",
        "changelog.html",
        "guide-client.html",
        "guide-webhooks.html",
        "guide-mock.html",
        "guide-conformance.html",
      ]),
    );
    const base = server?.url ?? "";
    const expected = pages.map((p) => new URL(p, base).href).sort();
    // Each page is reached by clicking the previous one's header link, so every page is navigated to and from.
    const { page, errors } = await open(pages[0] ?? "index.html");
    for (let i = 0; i < pages.length; i++) {
      const file = pages[i] ?? "";
      expect(new URL(page.url()).pathname, "the click landed").toBe(`/${file}`);
      if (file === "api.html") await waitForReference(page);
      const links = await headerLinks(page);
      expect([...new Set(links)].sort(), `${file} links every page`).toEqual(expected);
      for (const link of new Set(links)) {
        expect((await page.request.get(link)).status(), `${file} → ${link}`).toBe(200);
      }
      expect(
        await page.locator('header.site-header a[aria-current="page"]').evaluateAll((a) => a.length),
        `${file} marks itself`,
      ).toBe(1);
      // The search answers from this page.
      await page.fill("#site-search", "createPepCheck");
      await expect
        .poll(() => page.locator("#site-search-results a").count(), { timeout: 5_000 })
        .toBeGreaterThan(0);
      await page.fill("#site-search", "");
      await page.screenshot({
        path: join(ARTIFACTS, file.replace(/\.html$/, ".png")),
        fullPage: file !== "api.html",
      });
      const next = pages[(i + 1) % pages.length] ?? "index.html";
      await page.locator(`header.site-header a[href$="${next}"]`).first().click();
      await page.waitForURL(new URL(next, base).href);
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it("dark mode: every page has a dark background under prefers-color-scheme: dark", async () => {
    const luminance: Record<string, number> = {};
    for (const file of pages) {
      const { page, errors } = await open(file, { context: dark });
      luminance[file] = await backgroundLuminance(page);
      await page.screenshot({ path: join(ARTIFACTS, `dark-${file.replace(/\.html$/, ".png")}`) });
      expect(errors, file).toEqual([]);
      await page.close();
    }
    const missing = await open("no-such-page.html", { context: dark, status: 404 });
    luminance["404.html"] = await backgroundLuminance(missing.page);
    await missing.page.close();
    const bright = Object.entries(luminance).filter(([, l]) => l > 0.1);
    expect(bright, "pages whose background is not dark").toEqual([]);
    // And light under light, so the check can tell the two apart.
    const { page } = await open("index.html");
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);
    await page.close();
  });

  it("landing page: quick start, both authentication schemes, both error shapes, the lifecycle diagram", async () => {
    const { page, errors } = await open("index.html");
    const body = await text(page);
    for (const snippet of [
      "createClient",
      "npx idv-sandbox",
      "npm start",
      "npx @stoplight/prism-cli mock",
      "npx idv-conformance check",
      "parseWebhook",
    ]) {
      expect(body, `quick start mentions ${snippet}`).toContain(snippet);
    }
    const headerSchemes = Object.values<Json>(openapi.components.securitySchemes).filter(
      (s) => s.type === "apiKey",
    );
    expect(headerSchemes.length).toBe(4);
    for (const scheme of headerSchemes)
      expect(body, `authentication shows ${scheme.name}`).toContain(scheme.name);
    expect(body).toContain("ManualVerificationError");
    expect(body).toContain("ServiceError");
    const svg = page.locator("figure svg");
    await expect.poll(() => svg.count()).toBe(1);
    expect(await svg.isVisible()).toBe(true);
    const labels = (await svg.locator("text").allTextContents()).map(normalise);
    for (const state of LIFECYCLE_STATES)
      expect(labels, `the diagram has the state ${state}`).toContain(state);
    for (const event of DOCUMENT_EVENTS.slice(0, 6)) expect(labels).toContain(`event: ${event}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("API reference: every operation and webhook, the servers box without backticks, a title that wraps between words", async () => {
    const operations = contractOperations(openapi);
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const { page, errors } = await open("api.html");
    const body = await text(page);
    // The local server is the sandbox or the mock: the box says which command starts each.
    expect(body).toContain("the sandbox (npx idv-sandbox; npm start in the source repository)");
    expect(body).toContain("the contract mock (npm run mock)");
    expect(body).not.toContain("`npm run mock`");
    // Redoc shows one tag at a time: open each from the sidebar as a reader would.
    const tags = [...new Set(operations.flatMap((op) => op.tags))];
    const missing: string[] = [];
    for (const tag of tags) {
      await page
        .locator("#redoc")
        .getByRole("link", { name: tag, exact: true })
        .first()
        .click({ timeout: 15_000 });
      const expected = operations
        .filter((op) => op.tags.includes(tag))
        .flatMap((op) => [op.summary, ...(op.path ? [op.path] : [])]);
      missing.push(...(await waitForTexts(page, expected)).map((t) => `${tag}: ${t}`));
    }
    expect(missing).toEqual([]);
    expect(operations.filter((op) => op.tags.length === 0).map((op) => op.label)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "api-tag.png") });

    // At 390 px the title wraps between words: no word of it spans two lines.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(new URL("api.html", server?.url).href);
    await waitForReference(page);
    const split = await page
      .locator('[data-component-name="Typography/H1"]')
      .first()
      .evaluate((h1) => {
        const broken: string[] = [];
        const node = h1.firstChild;
        const content = node?.textContent ?? "";
        for (const match of content.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node as Node, match.index ?? 0);
          range.setEnd(node as Node, (match.index ?? 0) + match[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
        return broken;
      });
    expect(split, "words of the title broken across lines").toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "api-390px.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("API reference: a curl and a typed-client sample for every operation", async () => {
    const samples = operationSamples(openapi);
    expect(samples).toHaveLength(20);
    const { page, errors } = await open("api.html");
    const missing: string[] = [];
    for (const sample of samples) {
      const op = openapi.paths[sample.path][sample.method];
      const route = `#/${String(op.tags[0])
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")}/${sample.operationId.toLowerCase()}`;
      await page.evaluate((hash) => {
        location.hash = hash;
      }, route);
      // The operation's own samples panel: the one whose header shows its path.
      const panel = page
        .locator(".panel-request-samples")
        .filter({ has: page.getByText(sample.path, { exact: true }) })
        .first();
      await expect.poll(() => panel.count(), { timeout: 15_000 }).toBe(1);
      const chooser = panel.getByText(/^(curl|Node\.js)$/).first();
      const shows = async (lang: string, line: string): Promise<boolean> => {
        if (normalise((await chooser.textContent()) ?? "") !== lang) {
          await chooser.click();
          // Redoc keeps a menu per panel in the page; the one just opened is the last.
          const item = page.getByRole("menuitem", { name: lang, exact: true });
          await expect.poll(() => item.count()).toBeGreaterThan(0);
          await item.last().evaluate((el) => (el as HTMLElement).click());
        }
        await expect
          .poll(async () => (await panel.innerText()).includes(line), { timeout: 5_000 })
          .toBe(true)
          .catch(() => {});
        return (await panel.innerText()).includes(line);
      };
      const curlLine = sample.curl.split("\n").find((l) => l.startsWith("curl ")) ?? "";
      if (!(await shows("curl", curlLine))) missing.push(`${sample.operationId} curl: ${curlLine}`);
      const call = (sample.typescript.split("\n").find((l) => /idv\.\w+\(/.test(l)) ?? "").trim();
      if (!(await shows("Node.js", call))) missing.push(`${sample.operationId} Node.js: ${call}`);
    }
    expect(missing).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "api-code-sample.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("API reference: its search excerpts keep words apart ('developer dashboard')", async () => {
    const { page, errors } = await open("api.html");
    await page.locator("#redoc").getByText("Search", { exact: false }).first().click();
    await page.getByPlaceholder("Search docs...").fill("dashboard");
    await expect.poll(() => text(page), { timeout: 10_000 }).toMatch(/developer\s+dashboard/);
    expect(await text(page)).not.toContain("developerdashboard");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a sidebar path opened in a new tab lands on the reference, at that place", async () => {
    const { page, errors } = await open("pep-and-sanctions/createpepcheck");
    expect(new URL(page.url()).pathname).toBe("/api.html");
    expect(new URL(page.url()).hash).toBe("#/pep-and-sanctions/createpepcheck");
    const pep = openapi.paths["/api/v4/pep_checks"].post;
    expect(await waitForTexts(page, [pep.summary])).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("site search finds a guide by a word of it and an operation by its name, and takes the reader there", async () => {
    const { page, errors } = await open("webhooks.html");
    await page.fill("#site-search", "Retry-After");
    const guide = page.locator("#site-search-results a", { hasText: "Client" }).first();
    await expect.poll(() => guide.count()).toBe(1);
    expect(await guide.getAttribute("href")).toMatch(/guide-client\.html#/);
    await page.fill("#site-search", "createPepCheck");
    const result = page.locator("#site-search-results a").first();
    await expect.poll(async () => (await result.textContent()) ?? "").toContain("POST /api/v4/pep_checks");
    await result.click();
    await page.waitForURL(/api\.html#\/pep-and-sanctions\/createpepcheck$/);
    expect(await waitForTexts(page, [openapi.paths["/api/v4/pep_checks"].post.summary])).toEqual([]);
    // A gap and a webhook event are in the index too.
    await page.fill("#site-search", "not shown");
    await expect
      .poll(() => page.locator("#site-search-results a", { hasText: "Gap" }).count())
      .toBeGreaterThan(0);
    await page.fill("#site-search", "case_completed");
    await expect
      .poll(() => page.locator("#site-search-results a", { hasText: "Webhook event" }).count())
      .toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("webhooks page: every event, a contents entry per channel and event, payloads folded until opened", async () => {
    const { page, errors } = await open("webhooks.html");
    const headings = (await page.locator("article.message h3 code").allTextContents()).map(normalise);
    const messages = listMessages(asyncapi);
    for (const event of new Set([...DOCUMENT_EVENTS, ...messages.map((m) => m.name)])) {
      expect(headings, `an event section for ${event}`).toContain(event);
    }
    const toc = await page
      .locator("nav.webhook-toc a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    for (const m of messages) expect(toc, `contents link to ${m.name}`).toContain(`#${m.anchor}`);
    for (const id of Object.keys(asyncapi.channels)) {
      const anchor = `#channel-${id.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
      expect(toc).toContain(anchor);
      expect(await page.locator(anchor).count(), `${anchor} exists`).toBe(1);
    }
    const payloads = page.locator("details.payload");
    expect(await payloads.count()).toBeGreaterThanOrEqual(messages.length);
    expect(await page.locator("details.payload[open]").count(), "folded at first").toBe(0);
    const first = messages[0];
    await page.locator(`nav.webhook-toc a[href="#${first?.anchor}"]`).click();
    const payload = page.locator(`#${first?.anchor} details.payload`).last();
    await payload.locator("summary").click();
    expect(await payload.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await payload.locator("table").isVisible()).toBe(true);
    const height = await page.evaluate(() => document.body.scrollHeight);
    expect(height, "the folded page is far shorter than 23,600 px").toBeLessThan(15_000);
    await page.screenshot({ path: join(ARTIFACTS, "webhooks-open-payload.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("gaps page: every mark, grouped with a link that lands on its operation, and a filter that narrows", async () => {
    const marks = [...collectGaps(openapi), ...collectGaps(asyncapi)];
    const { page, errors } = await open("gaps.html");
    const body = normalise(await text(page));
    const missing = marks.flatMap((mark) =>
      [mark.quote, mark.choice]
        .filter((part) => !body.includes(normalise(part)))
        .map((p) => `${mark.pointer}: ${p}`),
    );
    expect(missing).toEqual([]);
    expect(await page.locator(".gap-entry").count()).toBe(marks.length);
    expect(body).not.toContain("/paths/~1api");

    // The filter narrows as you type, and every mark left holds the words.
    const count = () => page.locator(".gap-entry:visible").count();
    expect(await count()).toBe(marks.length);
    await page.fill("#gap-filter", "Svc-Date");
    await expect.poll(count).toBeLessThan(marks.length);
    const shown = await count();
    expect(shown).toBeGreaterThan(0);
    for (const entry of await page.locator(".gap-group:visible").allTextContents()) {
      expect(entry.toLowerCase()).toContain("svc-date");
    }
    await page.fill("#gap-filter", "pep_checks");
    await expect.poll(count).toBeLessThan(marks.length);
    await page.screenshot({ path: join(ARTIFACTS, "gaps-filtered.png") });

    // A group's link lands on its operation in the reference.
    const pep = openapi.paths["/api/v4/pep_checks"].post;
    await page.locator("a.gap-place", { hasText: "POST /api/v4/pep_checks" }).first().click();
    await page.waitForURL(/api\.html#\/pep-and-sanctions\/createpepcheck$/);
    expect(await waitForTexts(page, [pep.summary])).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("changelog page: every release, breaking changes first", async () => {
    const { page, errors } = await open("changelog.html");
    const changelog = readFileSync(changelogPath, "utf8");
    const releases = [...changelog.matchAll(/^## (.+)$/gm)].map((m) => normalise(m[1] ?? ""));
    const headings = (await page.locator("section.release > h2").allTextContents()).map(normalise);
    expect(headings).toEqual(releases);
    for (const release of await page.locator("section.release").all()) {
      const breaking = release.locator("section.breaking");
      if ((await breaking.count()) === 0) continue;
      // The breaking section comes straight after the release heading.
      expect(await breaking.first().evaluate((el) => el.previousElementSibling?.tagName)).toBe("H2");
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a missing page gets the styled 404 page, with the site's navigation", async () => {
    const { page, errors } = await open("no/such/page.html", { status: 404 });
    expect(await text(page)).toContain("This page is not part of the site");
    const links = await headerLinks(page);
    expect([...new Set(links)].sort()).toEqual(pages.map((p) => new URL(p, server?.url).href).sort());
    expect(await page.locator(".code-404").evaluate((el) => getComputedStyle(el).fontSize)).toBe("64px");
    await page.screenshot({ path: join(ARTIFACTS, "404.png") });
    // The only console error is the browser reporting the 404 status itself.
    expect(errors.filter((e) => !e.includes("404"))).toEqual([]);
    await page.close();
  });

  it("no request left localhost", () => {
    // Runs last: every page above has loaded by now.
    expect(leftLocalhost).toEqual([]);
  });
});
