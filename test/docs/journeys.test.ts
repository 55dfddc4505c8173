// The journeys on the docs site: one page per workflow of arazzo/, its sequence diagram drawn at
// build time as inline SVG (no script, nothing from the network), each step linked to its operation
// in the reference and each awaited event to the webhooks page, and the landing page listing them.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArazzo } from "../../scripts/arazzo/load-yaml.js";
import { type BuildResult, buildSite, DEFAULT_BUILD } from "../../scripts/docs/build-site.js";
import { readGuides } from "../../scripts/docs/guides.js";
import { journeyFile } from "../../scripts/docs/journeys.js";
import { findExternalLoads } from "../../scripts/docs/offline.js";
import { operationLink } from "../../scripts/docs/reference-links.js";
import { renderSequence } from "../../scripts/docs/sequence-diagram.js";
import { listMessages } from "../../scripts/docs/webhooks-page.js";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import { HTTP_METHODS, type Json } from "../support/contract.js";

const workflows = loadArazzo(ROOT).flatMap((f) =>
  f.document.workflows.map((w: Json) => [w.workflowId as string, w, f.path] as const),
);
let dir: string;
let built: BuildResult;
const openapi = JSON.parse(readFileSync(DEFAULT_BUILD.openapiPath, "utf8"));
const asyncapi = JSON.parse(readFileSync(DEFAULT_BUILD.asyncapiPath, "utf8"));
const read = (file: string): string => readFileSync(join(dir, "site", file), "utf8");

/** The reference link of an operation, found by its id. */
function linkOf(operationId: string): string {
  for (const [path, item] of Object.entries<Json>(openapi.paths))
    for (const method of HTTP_METHODS)
      if (item[method]?.operationId === operationId) return operationLink(openapi, "paths", path, method);
  throw new Error(`no operation ${operationId}`);
}

/** The ids on a page. */
const idsOf = (html: string): Set<string> => new Set([...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]!));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "idv-docs-journeys-"));
  // One more workflow in a copy of arazzo/: it becomes a page with no code.
  const arazzo = join(dir, "arazzo");
  mkdirSync(arazzo);
  for (const name of readdirSync(fromRoot("arazzo")).filter((n) => n.endsWith(".arazzo.yaml")))
    copyFileSync(fromRoot("arazzo", name), join(arazzo, name));
  writeFileSync(
    join(arazzo, "zz-extra.arazzo.yaml"),
    readFileSync(fromRoot("arazzo/fraud-analytics.arazzo.yaml"), "utf8")
      .replace("workflowId: fraud-analytic", "workflowId: extra-<script>-journey")
      .replace(/summary: .*/, "summary: A journey added <b>later</b>"),
  );
  built = await buildSite({ ...DEFAULT_BUILD, outDir: join(dir, "site"), arazzoDir: arazzo });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a page per workflow", () => {
  it("every workflow of arazzo/ has its page, and a workflow added is a page too", () => {
    const pages = built.files.filter((f) => f.startsWith("journey-")).sort();
    expect(pages).toEqual(
      [...workflows.map(([id]) => journeyFile(id)), "journey-extra-script-journey.html"].sort(),
    );
  });

  it.each(workflows)("%s: the diagram is inline SVG with an arrow per request, answer and event", (id, w) => {
    const html = read(journeyFile(id));
    const svgs = [...html.matchAll(/<svg\b[\s\S]*?<\/svg>/g)].map((m) => m[0]);
    expect(svgs).toHaveLength(1);
    const svg = svgs[0]!;
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="sequence" role="img"/);
    for (const lane of ["Client", "Service", "Webhook receiver"]) expect(svg).toContain(`>${lane}</text>`);
    const events = w.steps.flatMap((s: Json) => s["x-receive"] ?? []);
    expect(
      svg.match(
        /<line x1="[\d.]+" y1="[\d.]+" x2="[\d.]+" y2="[\d.]+" stroke="currentColor" stroke-width="1.3"/g,
      ),
    ).toHaveLength(w.steps.length * 2 + events.length);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(w.steps.length);
    expect(svg).not.toMatch(/<script|<image|<foreignObject|\bon\w+=/i);
    expect(findExternalLoads(html)).toEqual([]);
    // The site's own script only: the diagram needs none.
    expect([...html.matchAll(/<script\b[^>]*\bsrc="([^"]*)"/gi)].map((m) => m[1])).toEqual([
      "assets/site.js",
    ]);
  });

  it.each(workflows)(
    "%s: each step links its operation, states its request, criteria and outputs",
    (id, w, source) => {
      const html = read(journeyFile(id));
      expect(html).toContain(`<code>${source}</code>`);
      for (const step of w.steps as Json[]) {
        expect(html).toContain(`<li id="step-${step.stepId.toLowerCase()}"`);
        expect(html).toContain(`href="${linkOf(step.operationId)}"`);
        for (const c of step.successCriteria ?? [])
          expect(html).toContain(`<code>${c.condition.replace(/'/g, "&#39;").replace(/</g, "&lt;")}</code>`);
        for (const name of Object.keys(step.outputs ?? {})) expect(html).toContain(`<code>${name}</code> = `);
        for (const p of step.parameters ?? []) expect(html).toContain(`<code>${p.name}</code>`);
        if (step.requestBody) expect(html).toContain(`<code>${step.requestBody.contentType}</code>`);
      }
    },
  );

  it.each(workflows)("%s: each awaited event links to its entry on the webhooks page", (id, w) => {
    const html = read(journeyFile(id));
    const webhookIds = idsOf(read("webhooks.html"));
    const messages = listMessages(asyncapi);
    for (const entry of w.steps.flatMap((s: Json) => s["x-receive"] ?? [])) {
      const [, channel, key] = /^#\/channels\/([^/]+)\/messages\/([^/]+)$/.exec(entry.message)!;
      const message = messages.find((m) => m.channelId === channel && m.key === key)!;
      expect(webhookIds.has(message.anchor), message.anchor).toBe(true);
      expect(html).toContain(`href="webhooks.html#${message.anchor}"`);
    }
  });

  it("escapes what the document says (a hostile id and summary)", () => {
    const html = read("journey-extra-script-journey.html");
    expect(html).not.toContain("<script>-journey");
    expect(html).not.toContain("<b>later</b>");
    expect(html).toContain("extra-&lt;script&gt;-journey");
  });
});

describe("the landing page and the navigation", () => {
  it("the landing page lists every journey, linked to its page", () => {
    const html = read("index.html");
    const list = /<ul class="journeys">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? "";
    for (const [id, w] of workflows) {
      expect(list).toContain(`<a href="${journeyFile(id)}"><code>${id}</code></a>`);
      expect(list).toContain(w.summary.replace(/'/g, "&#39;"));
    }
  });

  it("the site search finds each journey by its id and by a step's operation", () => {
    const index = JSON.parse(read("assets/search-index.json")) as {
      kind: string;
      title: string;
      href: string;
      text: string;
    }[];
    for (const [id, w] of workflows) {
      const entry = index.find((e) => e.kind === "Journey" && e.href === journeyFile(id));
      expect(entry?.title, id).toContain(id);
      expect(entry?.text).toContain(w.steps[0].operationId);
    }
  });

  it("every page's header reaches every journey", () => {
    for (const page of ["index.html", "gaps.html", journeyFile(workflows[0]![0])]) {
      const nav = /<nav class="guide-nav journey-nav"[\s\S]*?<\/nav>/.exec(read(page))?.[0] ?? "";
      for (const [id] of workflows) expect(nav, page).toContain(`href="${journeyFile(id)}"`);
    }
  });
});

describe("links from the guides", () => {
  it("a guide's link to arazzo/ or to a workflow of a document lands on the journeys", () => {
    const article =
      /<article class="guide">[\s\S]*<\/article>/.exec(read("guide-other-tools.html"))?.[0] ?? "";
    expect(article).toContain('href="index.html#journeys"');
    expect(article).toContain('href="journey-manual-verification-export.html"');
    expect(article).toContain('href="journey-biometric-review-then-pdf.html"');
  });

  it("a link to a document or a workflow the site has no page for keeps its words only", () => {
    const guides = join(dir, "guides");
    mkdirSync(guides, { recursive: true });
    writeFileSync(
      join(guides, "g.md"),
      "# G\n\n[first](../arazzo/pep-checks.arazzo.yaml), [named](../arazzo/pep-checks.arazzo.yaml#pep-check-pdf), [none](../arazzo/nope.arazzo.yaml), [other](../arazzo/pep-checks.arazzo.yaml#nope)\n",
    );
    const pages = new Map([
      ["arazzo/pep-checks.arazzo.yaml", "journey-pep-check-pdf.html"],
      ["arazzo/pep-checks.arazzo.yaml#pep-check-pdf", "journey-pep-check-pdf.html"],
    ]);
    const html = readGuides(guides, pages)[0]!.html;
    expect(html.match(/href="journey-pep-check-pdf\.html"/g)).toHaveLength(2);
    expect(html).toContain("none");
    expect(html).not.toContain("nope");
  });
});

describe("renderSequence", () => {
  it("escapes labels and cuts a long one, keeping the link", () => {
    const svg = renderSequence(
      ["A", "B<"],
      [{ from: 0, to: 1, label: `"<script>${"x".repeat(80)}`, href: 'api.html#/"a"' }],
      "x",
    );
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&quot;&lt;script&gt;");
    expect(svg).toContain("…</text>");
    expect(svg).toContain('href="api.html#/&quot;a&quot;"');
    expect(svg).toContain(">B&lt;</text>");
  });
});
