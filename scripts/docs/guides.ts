/**
 * The guides in docs/*.md as pages of the site. They are found by listing the folder, so a guide
 * that lands later (sandbox.md, security.md, releasing.md) becomes a page without a change here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SitePage } from "./layout.js";
import { type Heading, renderMarkdown } from "./markdown.js";

/** docs/*.md files that are not guides: the source document and the measurements. */
const NOT_GUIDES = new Set(["interface-document.md", "benchmarks.md"]);

/** Short labels for the navigation, in this order; another guide gets its title, after these. */
const KNOWN = new Map([
  ["client", "Client"],
  ["webhooks", "Webhook helpers"],
  ["mock", "Mock"],
  ["sandbox", "Sandbox"],
  ["conformance", "Conformance"],
  ["security", "Security"],
  ["proxy", "Proxy"],
  ["probe", "Probe and receiver"],
  ["without-node", "Without Node"],
  ["other-tools", "Other tools"],
  ["releasing", "Releasing"],
]);

export interface Guide {
  /** The file's name without `.md`. */
  name: string;
  page: SitePage;
  title: string;
  html: string;
  headings: Heading[];
  /** The Markdown source, for the search index. */
  source: string;
}

/** The page a guide becomes. */
export const guideFile = (name: string): string => `guide-${name}.html`;

/**
 * Every guide in a folder (docs/ by default), rendered, in navigation order. A link to
 * `../arazzo/README.md` goes to the landing page's list of journeys, one to an Arazzo document to
 * the page of its first workflow, or of the workflow its fragment names (`journeys` maps
 * `arazzo/<name>.arazzo.yaml` and `arazzo/<name>.arazzo.yaml#<workflowId>` to the pages).
 */
export function readGuides(dir: string, journeys: ReadonlyMap<string, string> = new Map()): Guide[] {
  const names = readdirSync(dir)
    .filter((file) => file.endsWith(".md") && !NOT_GUIDES.has(file))
    .map((file) => file.slice(0, -3));
  const order = [...KNOWN.keys()];
  const rank = (name: string): number => (order.includes(name) ? order.indexOf(name) : order.length);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const published = new Set(names);
  const link = (href: string): string | undefined => {
    // A link to another guide goes to its page; a link to a file the site does not publish keeps its words.
    const match = /^(?:\.\/)?([\w-]+)\.md(#[\w-]*)?$/.exec(href);
    if (match?.[1] && published.has(match[1])) return guideFile(match[1]) + (match[2] ?? "");
    if (/^\.\.\/arazzo\/(README\.md)?$/.test(href)) return "index.html#journeys";
    const arazzo = /^\.\.\/(arazzo\/[\w-]+\.arazzo\.yaml(#[\w-]+)?)$/.exec(href)?.[1];
    return arazzo === undefined ? undefined : journeys.get(arazzo);
  };
  return names.map((name) => {
    const source = readFileSync(join(dir, `${name}.md`), "utf8");
    const rendered = renderMarkdown(source, { link });
    const title = rendered.title ?? name;
    return {
      name,
      title,
      html: rendered.html,
      headings: rendered.headings,
      source,
      page: { file: guideFile(name), label: KNOWN.get(name) ?? title, group: "guide" },
    };
  });
}
