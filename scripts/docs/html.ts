/** Escape text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(text: unknown): string {
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A slug usable as an element id: lower case, runs of other characters as one dash. */
export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "item"
  );
}

/** Pretty JSON inside a code block, escaped. */
export function jsonBlock(value: unknown): string {
  return `<pre class="code"><code>${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;
}

/**
 * Render the small subset of Markdown the contracts' descriptions use: paragraphs, "#" headings
 * (shifted down two levels to sit under the page's own), "- " lists with indented continuation
 * lines, `code`, **bold** and [links](url). Everything is escaped first, so no HTML gets through.
 */
export function inlineMarkdown(text: string | undefined): string {
  if (!text) return "";
  const out: string[] = [];
  let paragraph: string[] = [];
  let items: string[] | null = null;
  const flush = (): void => {
    if (paragraph.length) out.push(`<p>${inline(paragraph.join(" "))}</p>`);
    if (items) out.push(`<ul>${items.map((item) => `<li>${inline(item)}</li>`).join("")}</ul>`);
    paragraph = [];
    items = null;
  };
  for (const line of text.split("\n")) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (line.trim() === "") flush();
    else if (heading) {
      flush();
      const level = Math.min(6, (heading[1]?.length ?? 1) + 2);
      out.push(`<h${level}>${inline(heading[2] ?? "")}</h${level}>`);
    } else if (item) {
      if (paragraph.length) flush();
      items = items ?? [];
      items.push(item[1] ?? "");
    } else if (items && /^\s/.test(line)) {
      items[items.length - 1] += ` ${line.trim()}`;
    } else {
      if (items) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return out.join("\n");
}

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_all, label: string, href: string) =>
      // Only relative links and https become anchors; anything else stays text.
      /^(https:|#|\.{0,2}\/|[a-z0-9-]+\.html)/i.test(href) ? `<a href="${href}">${label}</a>` : label,
    );
}

/**
 * Put every table in a container that scrolls sideways, so a table wider than a phone scrolls in
 * place instead of widening the whole page. Text inside the site is escaped, so every `<table` in
 * the markup is an element; each opening has its closing, so the wrappers nest as the tables do.
 */
export function scrollableTables(html: string): string {
  return html.replace(/<table\b/g, '<div class="table-scroll">$&').replace(/<\/table>/g, "$&</div>");
}
