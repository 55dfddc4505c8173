import { type GapMark, groupByQuote } from "./gaps.js";
import { escapeHtml, slug } from "./html.js";

/** One contract's marks, with how the page names it. */
export interface GapSource {
  title: string;
  file: string;
  /** null when the contract is not built yet. */
  marks: GapMark[] | null;
}

/** The gaps page's content: per contract, each gap of the document once with every place and choice. */
export function renderGapsContent(sources: GapSource[]): string {
  const total = sources.reduce((n, source) => n + (source.marks?.length ?? 0), 0);
  const intro = `<h1>Gaps</h1>
    <p class="lead">Where the interface document leaves something out (&ldquo;not shown&rdquo;) or is ambiguous, the
    contracts make a choice and mark the place with <code>x-gap</code>: the document's exact words and the choice
    made. This page lists all ${total} marks, grouped by the document's words.</p>
    <ul class="toc">${sources
      .map(
        (source) =>
          `<li><a href="#${slug(source.title)}">${escapeHtml(source.title)}</a> (<code>${escapeHtml(source.file)}</code>): ${
            source.marks ? `${source.marks.length} marks` : "not built yet"
          }</li>`,
      )
      .join("")}</ul>`;
  return [intro, ...sources.map(renderSource)].join("\n");
}

function renderSource(source: GapSource): string {
  const heading = `<h2 id="${slug(source.title)}">${escapeHtml(source.title)}</h2>`;
  if (!source.marks) {
    return `<section>${heading}<p class="notice"><code>${escapeHtml(source.file)}</code> does not exist yet, so its gaps are not listed. Build the contract and run <code>npm run docs</code> again.</p></section>`;
  }
  if (source.marks.length === 0) return `<section>${heading}<p>No marks.</p></section>`;
  const groups = groupByQuote(source.marks).map(
    (group) => `<article class="gap">
      <blockquote>${escapeHtml(group.quote)}</blockquote>
      <table>
        <thead><tr><th>Where</th><th>Choice made</th></tr></thead>
        <tbody>${group.marks
          .map(
            (mark) =>
              `<tr><td>${escapeHtml(mark.where)}<br><code class="pointer">${escapeHtml(mark.pointer || "/")}</code></td><td>${escapeHtml(mark.choice)}</td></tr>`,
          )
          .join("")}</tbody>
      </table>
    </article>`,
  );
  return `<section>${heading}${groups.join("\n")}</section>`;
}
