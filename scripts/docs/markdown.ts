/**
 * The guides and CHANGELOG.md rendered to HTML by markdown-it (CommonMark with GFM tables), raw HTML
 * off: a tag in a guide is shown as text, never reaches the page. On top of markdown-it: ids on the
 * headings (for the table of contents and the search index), fenced code in the site's code blocks,
 * and links rewritten for the site (another guide's page, or only the label where the target is not
 * published or is not https).
 */
import MarkdownIt, { type Token } from "markdown-it";
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

/** What one render needs from the rules below; markdown-it hands it through `env.site`. */
interface RenderEnv {
  options: MarkdownOptions;
  headings: Heading[];
  ids: Map<string, number>;
}

const keepHttps = (href: string): string | undefined => (/^https:\/\//i.test(href) ? href : undefined);

function resolveLink(href: string, options: MarkdownOptions): string | undefined {
  if (href.startsWith("#")) return href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return keepHttps(href);
  return options.link?.(href);
}

/** The words of an inline token, without markup: a heading's text in the contents and the index. */
function plainText(token: Token | undefined): string {
  return (token?.children ?? [])
    .filter((child) => child.type === "text" || child.type === "code_inline")
    .map((child) => child.content)
    .join("");
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// Every destination reaches the rule below, which keeps only what the site can link to; markdown-it's
// own check would leave a refused link as its literal `[label](href)` text instead of its label.
md.validateLink = () => true;

// Headings get ids (unique within a render, behind the caller's prefix); a link the site does not
// publish keeps its label only; an image is shown as its alt text (the guides are text).
md.core.ruler.push("site", (state) => {
  const env = state.env.site as RenderEnv;
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token?.type === "heading_open") {
      const text = plainText(tokens[i + 1]);
      const base = `${env.options.idPrefix ?? ""}${slug(text)}`;
      const seen = env.ids.get(base) ?? 0;
      env.ids.set(base, seen + 1);
      const id = seen ? `${base}-${seen + 1}` : base;
      token.attrSet("id", id);
      env.headings.push({ level: Number(token.tag.slice(1)), text, id });
    }
    if (token?.type !== "inline" || !token.children) continue;
    const children: Token[] = [];
    const dropped: boolean[] = [];
    for (const child of token.children) {
      if (child.type === "link_open") {
        const target = resolveLink(String(child.attrGet("href") ?? ""), env.options);
        dropped.push(target === undefined);
        if (target === undefined) continue;
        child.attrs = [["href", target]];
      } else if (child.type === "link_close") {
        if (dropped.pop()) continue;
      } else if (child.type === "image") {
        const alt = new state.Token("text", "", 0);
        alt.content = plainText(child);
        children.push(alt);
        continue;
      }
      children.push(child);
    }
    token.children = children;
  }
});

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = (token?.info ?? "").trim().split(/\s+/)[0] ?? "";
  const attr = lang ? ` data-lang="${escapeHtml(lang)}"` : "";
  return `<pre class="code"${attr}><code>${escapeHtml((token?.content ?? "").replace(/\n$/, ""))}</code></pre>\n`;
};
md.renderer.rules.code_block = (tokens, idx) =>
  `<pre class="code"><code>${escapeHtml((tokens[idx]?.content ?? "").replace(/\n$/, ""))}</code></pre>\n`;

/** Render a Markdown document. */
export function renderMarkdown(source: string, options: MarkdownOptions = {}): RenderedMarkdown {
  const env: RenderEnv = { options, headings: [], ids: new Map() };
  const html = md.render(source, { site: env }).trim();
  const title = env.headings.find((h) => h.level === 1)?.text;
  return { html, title, headings: env.headings };
}
