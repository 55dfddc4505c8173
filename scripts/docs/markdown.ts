/**
 * The Markdown the guides and CHANGELOG.md are written in, rendered to HTML: ATX headings (with
 * ids), paragraphs, fenced code, "-"/"*" and numbered lists with continuation lines, pipe tables,
 * block quotes, rules, inline code, bold, italics, links and reference links. Everything is escaped
 * first, so no HTML in a guide reaches the page. Line by line, without recursion.
 */
import { escapeHtml, slug } from "./html.js";

/** A heading of a rendered document, for its table of contents and the search index. */
export interface Heading {
  level: number;
  text: string;
  id: string;
}

export interface RenderedMarkdown {
  html: string;
  title: string | undefined;
  headings: Heading[];
}

export interface MarkdownOptions {
  /** Put before every heading id, so that several documents can share a page. */
  idPrefix?: string;
  /** Where a relative link goes on the site; undefined keeps only its label (the target is not published). */
  link?: (href: string) => string | undefined;
}

const keepHttps = (href: string): string | undefined => (/^https:\/\//i.test(href) ? href : undefined);

/** Render a Markdown document. */
export function renderMarkdown(source: string, options: MarkdownOptions = {}): RenderedMarkdown {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const references = new Map<string, string>();
  const body = lines.filter((line) => {
    const ref = /^\s{0,3}\[([^\]]+)\]:\s*(\S+)\s*$/.exec(line);
    if (ref?.[1] && ref[2]) references.set(ref[1].toLowerCase(), ref[2]);
    return !ref;
  });
  const resolveLink = (href: string): string | undefined => {
    if (href.startsWith("#")) return href;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return keepHttps(href);
    return options.link?.(href);
  };
  const inline = (text: string): string => renderInline(text, references, resolveLink);

  const out: string[] = [];
  const headings: Heading[] = [];
  const ids = new Map<string, number>();
  let title: string | undefined;
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flush = (): void => {
    if (paragraph.length) out.push(`<p>${inline(paragraph.join(" "))}</p>`);
    if (list) {
      const tag = list.ordered ? "ol" : "ul";
      out.push(`<${tag}>${list.items.map((item) => `<li>${inline(item)}</li>`).join("")}</${tag}>`);
    }
    paragraph = [];
    list = null;
  };

  for (let i = 0; i < body.length; i++) {
    const line = body[i] ?? "";
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)\s*$/.exec(line);
    if (fence?.[1]) {
      flush();
      const code: string[] = [];
      const close = fence[1];
      for (i++; i < body.length && !(body[i] ?? "").trim().startsWith(close); i++) code.push(body[i] ?? "");
      const lang = fence[2] ? ` data-lang="${escapeHtml(fence[2])}"` : "";
      out.push(`<pre class="code"${lang}><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] && heading[2] !== undefined) {
      flush();
      const level = heading[1].length;
      const text = heading[2];
      const plain = text.replace(/[`*_]/g, "");
      if (level === 1 && title === undefined) title = plain;
      const base = `${options.idPrefix ?? ""}${slug(plain)}`;
      const seen = ids.get(base) ?? 0;
      ids.set(base, seen + 1);
      const id = seen ? `${base}-${seen + 1}` : base;
      headings.push({ level, text: plain, id });
      out.push(`<h${level} id="${id}">${inline(text)}</h${level}>`);
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line) && /^\s*\|?\s*:?-{2,}/.test(body[i + 1] ?? "")) {
      flush();
      const cells = (row: string): string[] =>
        row
          .trim()
          .replace(/^\||\|$/g, "")
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim().replace(/\\\|/g, "|"));
      const head = cells(line);
      const rows: string[][] = [];
      for (i += 2; i < body.length && /^\s*\|.*\|\s*$/.test(body[i] ?? ""); i++)
        rows.push(cells(body[i] ?? ""));
      i--;
      out.push(
        `<table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join("")}</tr></thead><tbody>${rows
          .map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`)
          .join("")}</tbody></table>`,
      );
      continue;
    }
    if (/^\s*>/.test(line)) {
      flush();
      const quoted: string[] = [];
      for (; i < body.length && /^\s*>/.test(body[i] ?? ""); i++)
        quoted.push((body[i] ?? "").replace(/^\s*>\s?/, ""));
      i--;
      out.push(`<blockquote>${inline(quoted.join(" "))}</blockquote>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push("<hr>");
      continue;
    }
    const item = /^\s{0,3}(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (line.trim() === "") flush();
    else if (item) {
      if (paragraph.length) flush();
      const ordered = item[2] !== undefined;
      if (list && list.ordered !== ordered) flush();
      list = list ?? { ordered, items: [] };
      list.items.push(item[3] ?? "");
    } else if (list && /^\s/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
    } else {
      if (list) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return { html: out.join("\n"), title, headings };
}

/** Inline Markdown over escaped text; code spans are set aside first so nothing inside them changes. */
function renderInline(
  text: string,
  references: Map<string, string>,
  resolveLink: (href: string) => string | undefined,
): string {
  const spans: string[] = [];
  const hold = (html: string): string => `\uE000${spans.push(html) - 1}\uE000`;
  // U+E000 (private use) marks a held span below; one in the text itself is dropped.
  let out = escapeHtml(text.replace(/\uE000/g, "")).replace(
    /(`+)([\s\S]+?)\1/g,
    (_all, _ticks, code: string) => hold(`<code>${code.trim()}</code>`),
  );
  const anchor = (label: string, href: string | undefined): string => {
    // The href was escaped with the text; unescape to resolve, escape again to print.
    const target = href === undefined ? undefined : resolveLink(unescapeHtml(href));
    return target === undefined ? label : hold(`<a href="${escapeHtml(target)}">${label}</a>`);
  };
  out = out
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_all, label: string, href: string) => anchor(label, href))
    .replace(/\[([^\]]+)\]\[([^\]]*)\]/g, (_all, label: string, key: string) =>
      anchor(label, references.get(unescapeHtml(key || label).toLowerCase())),
    )
    .replace(/\[([^\]]+)\](?![(:])/g, (all, label: string) => {
      const href = references.get(unescapeHtml(label).toLowerCase());
      return href === undefined ? all : anchor(label, href);
    })
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s).,;:!?]|$)/g, "$1<em>$2</em>")
    .replace(/(^|[\s(])_([^_\s][^_]*)_(?=[\s).,;:!?]|$)/g, "$1<em>$2</em>");
  // A link's label may hold a code span: restore until none is left (each pass removes one level).
  while (out.includes("\uE000"))
    out = out.replace(/\uE000(\d+)\uE000/g, (_all, n: string) => spans[Number(n)] ?? "");
  return out;
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
