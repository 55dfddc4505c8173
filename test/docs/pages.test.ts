/**
 * The site's text pages without a browser: Markdown rendering (escaping above all), the changelog's
 * breaking-first order, the guides found by listing docs/, the signature worked example, and the
 * search index.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseChangelog, renderChangelog } from "../../scripts/docs/changelog-page.js";
import { readGuides } from "../../scripts/docs/guides.js";
import { renderMarkdown } from "../../scripts/docs/markdown.js";
import { buildSearchIndex, plainText } from "../../scripts/docs/search-index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { loadOpenApi } from "../support/contract.js";

describe("renderMarkdown", () => {
  it("renders the guides' constructs", () => {
    const { html, title, headings } = renderMarkdown(
      [
        "# Title",
        "",
        "Text with `code`, **bold**, *em* and a [link](other.md) and [ref].",
        "",
        "## Part *one*",
        "",
        "- item one",
        "  continued",
        "- item two",
        "",
        "1. first",
        "2. second",
        "",
        "| A | B |",
        "|---|---|",
        "| `x` | y \\| z |",
        "",
        "```ts",
        "const a = 1 < 2 && `b`;",
        "```",
        "",
        "> quoted",
        "",
        "[ref]: https://example.com/ref",
      ].join("\n"),
      { link: (href) => (href === "other.md" ? "guide-other.html" : undefined) },
    );
    expect(title).toBe("Title");
    expect(headings.map((h) => h.id)).toEqual(["title", "part-one"]);
    expect(html).toContain("<code>code</code>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<em>em</em>");
    expect(html).toContain('<a href="guide-other.html">link</a>');
    expect(html).toContain('<a href="https://example.com/ref">ref</a>');
    // markdown-it puts a line break between block tags; the structure is what matters here.
    const compact = html.replace(/>\n</g, "><");
    expect(compact).toContain("<ul><li>item one\ncontinued</li><li>item two</li></ul>");
    expect(compact).toContain("<ol><li>first</li><li>second</li></ol>");
    expect(compact).toContain("<td><code>x</code></td><td>y | z</td>");
    expect(html).toContain(
      '<pre class="code" data-lang="ts"><code>const a = 1 &lt; 2 &amp;&amp; `b`;</code></pre>',
    );
    expect(compact).toContain("<blockquote><p>quoted</p></blockquote>");
  });

  it("follows CommonMark where the old line-by-line renderer did not: nested lists, emphasis inside words", () => {
    const { html } = renderMarkdown("- outer\n  - inner\n- next\n\nsnake_case_name and 2*3*4");
    expect(html.replace(/\n/g, "")).toContain("<ul><li>outer<ul><li>inner</li></ul></li><li>next</li></ul>");
    expect(html).toContain("snake_case_name and 2<em>3</em>4");
  });

  it("gives repeated headings distinct ids, behind the caller's prefix", () => {
    const { headings, html } = renderMarkdown("## Setup\n\n## Setup\n\n### `code` *here*", {
      idPrefix: "p-",
    });
    expect(headings).toEqual([
      { level: 2, text: "Setup", id: "p-setup" },
      { level: 2, text: "Setup", id: "p-setup-2" },
      { level: 3, text: "code here", id: "p-code-here" },
    ]);
    expect(html).toContain('<h2 id="p-setup-2">Setup</h2>');
  });

  it("shows raw HTML as text and an image as its alt text", () => {
    const { html } = renderMarkdown('<div onclick="x">hi</div>\n\n![a picture](pic.png) and <b>bold</b>');
    expect(html).toContain("&lt;div onclick=&quot;x&quot;&gt;hi&lt;/div&gt;");
    expect(html).toContain("<p>a picture and &lt;b&gt;bold&lt;/b&gt;</p>");
    expect(html).not.toMatch(/<(div|img|b)\b/);
  });

  it("keeps only the label of a link to something the site does not publish, or of a script URL", () => {
    const { html } = renderMarkdown("[a](../src/x.ts) [b](javascript:alert) [c](http://plain.example)");
    expect(html).toBe("<p>a b c</p>");
  });

  it("lets no markup through and ends, whatever the input", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.constantFrom("<script>x</script>", '<img src=x onerror="y">', "javascript:alert(1)"),
        (text, tag) => {
          const { html } = renderMarkdown(
            `${text}\n${tag}\n[${tag}](${tag})\n\`${tag}\`\n![${tag}](${tag})\n<${tag}>\n[x](<${tag}>)`,
          );
          expect(html).not.toMatch(/<(script|img)\b/i);
          expect(html).not.toMatch(/href="(?!https:\/\/|#)/i);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the changelog page", () => {
  const source = [
    "# Changelog",
    "",
    "Intro words.",
    "",
    "## Unreleased",
    "",
    "### Added",
    "- `getThing` operation",
    "",
    "### Breaking changes",
    "- `createPepCheck`: `middle_name` is required",
    "",
    "## 1.0.0 — 2026-11-01",
    "",
    "First contract.",
  ].join("\n");

  it("reads each release and its breaking changes", () => {
    const { intro, releases } = parseChangelog(source);
    expect(intro).toBe("Intro words.");
    expect(releases.map((r) => r.title)).toEqual(["Unreleased", "1.0.0 — 2026-11-01"]);
    expect(releases[0]?.breaking.map((b) => b.title)).toEqual(["Breaking changes"]);
    expect(releases[1]?.breaking).toEqual([]);
  });

  it("shows a release's breaking changes before its other sections", () => {
    const { html } = renderChangelog(source);
    const breaking = html.indexOf("middle_name");
    const added = html.indexOf("getThing");
    expect(breaking).toBeGreaterThan(0);
    expect(added).toBeGreaterThan(breaking);
    expect(html).toContain('<section class="breaking" id="release-unreleased-breaking">');
    expect(html).toContain('<span class="badge breaking-badge">breaking</span>');
  });

  it("renders the repository's CHANGELOG.md with every release heading", () => {
    const text = readFileSync(fromRoot("CHANGELOG.md"), "utf8");
    const releases = [...text.matchAll(/^## (.+)$/gm)].map((m) => (m[1] ?? "").trim());
    expect(releases.length).toBeGreaterThan(0);
    const { html } = renderChangelog(text);
    for (const title of releases) expect(html).toContain(`>${title.replace(/&/g, "&amp;")}</h2>`);
  });

  it("says so when there is no release", () => {
    expect(renderChangelog("# Changelog\n").html).toContain("lists no release yet");
  });
});

describe("the guides", () => {
  it("are found by listing the folder: a new guide becomes a page, the interface document does not", () => {
    const dir = mkdtempSync(join(tmpdir(), "idv-guides-"));
    try {
      writeFileSync(join(dir, "client.md"), "# The typed client\n\nSee [the sandbox](sandbox.md).\n");
      writeFileSync(join(dir, "sandbox.md"), "# The sandbox\n\n## Start\n\nRun it.\n");
      writeFileSync(join(dir, "zebra.md"), "# Zebra notes\n");
      writeFileSync(join(dir, "interface-document.md"), "# The document\n");
      const guides = readGuides(dir);
      expect(guides.map((g) => g.page.file)).toEqual([
        "guide-client.html",
        "guide-sandbox.html",
        "guide-zebra.html",
      ]);
      expect(guides.map((g) => g.page.label)).toEqual(["Client", "Sandbox", "Zebra notes"]);
      expect(guides[0]?.html).toContain('<a href="guide-sandbox.html">the sandbox</a>');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("carry the client guide's signature worked example, equal to node:crypto's HMAC of its inputs", () => {
    const date = "2026-11-22T09:30:00.000Z";
    const body =
      '{"reference":"onboarding-3108-pep","firstname":"Aroha","lastname":"Tipene","date_of_birth":"14/03/1985"}';
    const hmac = () => createHmac("sha256", "example-secret").update(date + body);
    const client = readGuides(fromRoot("docs")).find((g) => g.name === "client");
    expect(client?.html).toContain(hmac().digest("hex"));
    expect(client?.html).toContain(hmac().digest("base64"));
  });
});

describe("the search index", () => {
  const openapi = loadOpenApi();
  const index = buildSearchIndex({
    openapi,
    guides: readGuides(fromRoot("docs")),
    messages: [],
    gapGroups: [],
    changelog: [],
  });

  it("lists every operation with a link into the reference, and every guide section", () => {
    const operations = index.filter((e) => e.kind === "Operation");
    expect(operations).toHaveLength(20);
    for (const op of operations) expect(op.href).toMatch(/^api\.html#\/[a-z0-9-]+\/[a-z0-9]+$/);
    expect(index.some((e) => e.kind === "Guide" && e.href === "guide-client.html#downloads")).toBe(true);
  });

  it("keeps words apart where the source broke a line ('developer dashboard')", () => {
    expect(plainText("configured in the developer\ndashboard.")).toBe(
      "configured in the developer dashboard.",
    );
    expect(JSON.stringify(index)).not.toContain("developerdashboard");
  });

  it("never carries markup", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(plainText(`<b>${text}</b>`)).not.toMatch(/<\/?b>/);
      }),
      { numRuns: 100 },
    );
  });
});
