/**
 * The changelog page from CHANGELOG.md. Each release is a `## ` heading (`## 1.2.0 …`,
 * `## Unreleased`); within it a `### ` subsection whose title says "breaking" is shown first and
 * marked, whatever other subsections exist and in whatever order they were written.
 */
import { escapeHtml, slug } from "./html.js";
import { type Heading, renderMarkdown } from "./markdown.js";

export interface Release {
  title: string;
  id: string;
  /** Markdown of the breaking subsections (without their headings' order), first on the page. */
  breaking: { title: string; markdown: string }[];
  /** The rest of the release's Markdown, in its own order. */
  rest: string;
}

export interface Changelog {
  intro: string;
  releases: Release[];
}

/** Split `source` into blocks at lines starting with `prefix`, outside fenced code. */
function splitAt(
  source: string,
  prefix: string,
): { head: string; blocks: { title: string; body: string }[] } {
  const lines = source.split("\n");
  let fenced = false;
  const head: string[] = [];
  const blocks: { title: string; lines: string[] }[] = [];
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && line.startsWith(prefix))
      blocks.push({ title: line.slice(prefix.length).trim(), lines: [] });
    else (blocks.at(-1)?.lines ?? head).push(line);
  }
  return { head: head.join("\n"), blocks: blocks.map((b) => ({ title: b.title, body: b.lines.join("\n") })) };
}

/** Read CHANGELOG.md's releases and their breaking changes. */
export function parseChangelog(source: string): Changelog {
  const { head, blocks } = splitAt(source.replace(/\r\n?/g, "\n"), "## ");
  const intro = head.replace(/^#\s+.*\n?/m, "").trim();
  const ids = new Map<string, number>();
  const releases = blocks.map(({ title, body }) => {
    const base = `release-${slug(title)}`;
    const n = ids.get(base) ?? 0;
    ids.set(base, n + 1);
    const sections = splitAt(body, "### ");
    const breaking = sections.blocks.filter((s) => /breaking/i.test(s.title));
    const others = sections.blocks.filter((s) => !/breaking/i.test(s.title));
    return {
      title,
      id: n ? `${base}-${n + 1}` : base,
      breaking: breaking.map((s) => ({ title: s.title, markdown: s.body.trim() })),
      rest: [sections.head, ...others.map((s) => `### ${s.title}\n${s.body}`)].join("\n").trim(),
    };
  });
  return { intro, releases };
}

/** The changelog page's content and the headings the search index lists. */
export function renderChangelog(source: string): { html: string; headings: Heading[] } {
  const { intro, releases } = parseChangelog(source);
  const headings: Heading[] = [];
  const parts = [`<h1>Changelog</h1>`, `<div class="lead">${renderMarkdown(intro).html}</div>`];
  if (releases.length === 0) parts.push(`<p class="notice">CHANGELOG.md lists no release yet.</p>`);
  else
    parts.push(
      `<nav class="toc" aria-label="Releases"><ul>${releases
        .map(
          (r) =>
            `<li><a href="#${r.id}">${escapeHtml(r.title)}</a>${r.breaking.length ? ' <span class="badge breaking-badge">breaking</span>' : ""}</li>`,
        )
        .join("")}</ul></nav>`,
    );
  for (const release of releases) {
    headings.push({ level: 2, text: release.title, id: release.id });
    const breaking = release.breaking
      .map((b, i) => {
        const id = `${release.id}-breaking${i ? `-${i + 1}` : ""}`;
        headings.push({ level: 3, text: `${release.title}: ${b.title}`, id });
        const body = renderMarkdown(b.markdown, { idPrefix: `${id}-` }).html;
        return `<section class="breaking" id="${id}"><h3>${escapeHtml(b.title)}</h3>${body || "<p>None listed.</p>"}</section>`;
      })
      .join("");
    const rest = renderMarkdown(release.rest, { idPrefix: `${release.id}-` });
    parts.push(
      `<section class="release" id="${release.id}"><h2>${escapeHtml(release.title)}</h2>${breaking}${rest.html}</section>`,
    );
  }
  return { html: parts.join("\n"), headings };
}
