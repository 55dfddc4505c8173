/**
 * The docs site's layout, as a reader sees it in Debian's Chromium at a phone's width (390×844) and a
 * desktop's (1280×800): no page is wider than a phone, the header stays short, a code sample's
 * copy button is off its code and long lines scroll, and every label of the lifecycle diagram fits its
 * box and the drawing. Screenshots go to a temporary folder named in the test's output.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite, DEFAULT_BUILD } from "../../scripts/docs/build-site.js";
import { listen, type RunningServer } from "../../src/server/static-files.js";
import { launchChromium } from "../support/chromium.js";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const WIDTHS = [
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const;
/** An operation of the reference whose curl sample has lines far longer than a phone is wide. */
const OPERATION = "api.html#/pep-and-sanctions/createpepcheck";
const OPERATION_PATH = "/api/v4/pep_checks";
const RESEND_LABEL = "PUT /api/v2/resend_text/:transaction_id";

let outDir: string;
let shots: string;
/** The site's own pages (the reference is Redoc's, opened at an operation instead). */
let pages: string[] = [];
let server: RunningServer | undefined;
let browser: Browser | undefined;
const contexts = new Map<string, BrowserContext>();

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "idv-docs-layout-"));
  shots = join(outDir, "screenshots");
  mkdirSync(shots);
  const site = join(outDir, "site");
  const built = await buildSite({ ...DEFAULT_BUILD, outDir: site });
  pages = built.files.filter((f) => f.endsWith(".html") && f !== "404.html" && f !== "api.html");
  server = await listen(site, 0);
  const origin = new URL(server.url).origin;
  browser = await launchChromium();
  for (const [name, viewport] of WIDTHS) {
    const context = await browser.newContext({ viewport, colorScheme: "light" });
    // Nothing leaves the machine: any other origin is aborted.
    await context.route("**/*", (route) =>
      new URL(route.request().url()).origin === origin ? route.continue() : route.abort(),
    );
    contexts.set(name, context);
  }
  console.log(`docs layout screenshots: ${shots}`);
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  await server?.close().catch(() => {});
  // The screenshots stay for a look; the built site goes.
  if (outDir) rmSync(join(outDir, "site"), { recursive: true, force: true });
});

/** Open a page of the site at a width, failing on any console error or uncaught exception. */
async function open(width: string, file: string): Promise<{ page: Page; errors: string[] }> {
  const context = contexts.get(width);
  if (!context || !server) throw new Error("the browser or the server did not start");
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  const response = await page.goto(new URL(file, server.url).href, { waitUntil: "load" });
  expect(response?.status(), file).toBe(200);
  return { page, errors };
}

/** How far the document is wider than the window, in CSS pixels (0: no sideways scroll). */
const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - innerWidth);

/** The operation's own request samples panel, once Redoc has drawn it. */
async function samplesPanel(page: Page) {
  const panel = page
    .locator(".panel-request-samples")
    .filter({ has: page.getByText(OPERATION_PATH, { exact: true }) })
    .first();
  await expect.poll(() => panel.count(), { timeout: 30_000 }).toBe(1);
  await panel.locator("pre .line").first().waitFor();
  await panel.scrollIntoViewIfNeeded();
  return panel;
}

describe("the docs site's layout in Chromium", { timeout: 180_000 }, () => {
  it("at 390 px no page scrolls sideways (the landing, an operation, every other page), and the header is short", async () => {
    expect(pages).toContain("index.html");
    for (const file of [OPERATION, ...pages]) {
      const { page, errors } = await open("phone", file);
      if (file === OPERATION) await samplesPanel(page);
      await page.screenshot({ path: join(shots, `phone-${file.replace(/\W+/g, "-")}.png`) });
      expect(await overflow(page), `${file}: pixels wider than the window`).toBeLessThanOrEqual(0);
      const header = await page.locator("header.site-header").boundingBox();
      expect(header?.height ?? Infinity, `${file}: header height`).toBeLessThanOrEqual(PHONE.height / 4);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("at 390 px a table wider than the phone scrolls inside its own container", async () => {
    const { page } = await open("phone", "index.html");
    const tables = await page.locator("main table").evaluateAll((all) =>
      all.map((table) => {
        const box = table.parentElement as HTMLElement;
        return {
          wrapped: box.classList.contains("table-scroll"),
          overflowX: getComputedStyle(box).overflowX,
          scroll: box.scrollWidth,
          right: box.getBoundingClientRect().right,
        };
      }),
    );
    expect(tables.length).toBeGreaterThan(0);
    for (const table of tables) {
      expect(table.wrapped).toBe(true);
      expect(table.overflowX).toBe("auto");
      expect(table.right).toBeLessThanOrEqual(PHONE.width);
    }
    // The Errors tables are wider than the phone: their containers take the difference.
    expect(tables.filter((t) => t.scroll > PHONE.width).length).toBeGreaterThan(0);
    await page.close();
  });

  for (const [width] of WIDTHS) {
    it(`${width}: the copy button is off the code sample, and long lines scroll to their end`, async () => {
      const { page, errors } = await open(width, OPERATION);
      const panel = await samplesPanel(page);
      await panel.screenshot({ path: join(shots, `${width}-code-sample.png`) });
      const fit = await panel.evaluate((root) => {
        const pre = root.querySelector("pre");
        // The sample's own button: the servers menu above it holds hidden ones too.
        const button = root.querySelector(
          '[data-component-name="CodeBlock/CodeBlockControls"] [data-component-name="Buttons/CopyButton"]',
        );
        const lines = [...root.querySelectorAll("pre .line")];
        if (!pre || !button || lines.length === 0) return null;
        const overlaps = (a: DOMRect, b: DOMRect): boolean =>
          a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const frame = pre.getBoundingClientRect();
        // The first line as drawn: its box cut to the part of the sample that shows.
        const first = (lines[0] as Element).getBoundingClientRect();
        const shown = new DOMRect(
          Math.max(first.left, frame.left),
          first.top,
          Math.min(first.right, frame.right) - Math.max(first.left, frame.left),
          first.height,
        );
        const longest = lines.reduce((a, b) =>
          b.getBoundingClientRect().width > a.getBoundingClientRect().width ? b : a,
        );
        pre.scrollLeft = pre.scrollWidth;
        const end = longest.getBoundingClientRect();
        return {
          buttonShown: button.getBoundingClientRect().width > 0,
          onFirstLine: overlaps(button.getBoundingClientRect(), shown),
          wider: longest.getBoundingClientRect().width > frame.width,
          overflowX: getComputedStyle(pre).overflowX,
          whiteSpace: getComputedStyle(pre).whiteSpace,
          endShown: end.right <= frame.right + 0.5,
          buttonOnEnd: overlaps(button.getBoundingClientRect(), end),
        };
      });
      expect(fit, "a sample with a copy button and lines").not.toBeNull();
      expect(fit?.buttonShown, "the sample's copy button is drawn").toBe(true);
      expect(fit?.onFirstLine, "the copy button covers the first line").toBe(false);
      // The curl sample's body line is wider than the panel: it scrolls, unwrapped, to its last character.
      expect(fit?.wider).toBe(true);
      expect(fit?.overflowX).toBe("auto");
      expect(fit?.whiteSpace).toBe("pre");
      expect(fit?.endShown, "scrolled to the end, the longest line ends inside the sample").toBe(true);
      expect(fit?.buttonOnEnd, "the copy button covers the longest line's end").toBe(false);
      expect(errors).toEqual([]);
      await page.close();
    });

    it(`${width}: every lifecycle label fits its box and the drawing, the resend trigger in full`, async () => {
      const { page, errors } = await open(width, "index.html");
      const svg = page.locator("figure svg.diagram");
      await svg.scrollIntoViewIfNeeded();
      await page.locator("figure.diagram-frame").screenshot({ path: join(shots, `${width}-lifecycle.png`) });
      const report = await svg.evaluate((root) => {
        const inside = (a: DOMRect, b: DOMRect, slack = 0.5): boolean =>
          a.x >= b.x - slack &&
          a.y >= b.y - slack &&
          a.x + a.width <= b.x + b.width + slack &&
          a.y + a.height <= b.y + b.height + slack;
        const bad: string[] = [];
        // A node's or a cluster's label against its own shape, in the SVG's user units (getBBox).
        for (const group of root.querySelectorAll("g.node, g.cluster")) {
          const shape = group.querySelector("path, polygon, ellipse") as SVGGraphicsElement | null;
          if (!shape) continue;
          for (const text of group.querySelectorAll("text")) {
            if (!inside(text.getBBox(), shape.getBBox()))
              bad.push(`"${text.textContent}" overflows ${group.querySelector("title")?.textContent}`);
          }
        }
        // Every label against the drawing as shown: what lies outside the svg's box is cut off.
        const drawing = root.getBoundingClientRect();
        for (const text of root.querySelectorAll("text")) {
          if (!inside(text.getBoundingClientRect(), drawing, 1)) bad.push(`"${text.textContent}" is cut off`);
        }
        const edges = [...root.querySelectorAll("g.edge text")].map((t) => t.textContent ?? "");
        return { bad, edges };
      });
      expect(report.bad).toEqual([]);
      expect(report.edges).toContain(RESEND_LABEL);
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});
