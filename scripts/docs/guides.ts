/**
 * The guides in docs/*.md as pages of the site. They are found by listing the folder, so a guide
 * that lands later (sandbox.md, security.md, releasing.md) becomes a page without a change here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHmacSigner } from "../../src/client/signer.js";
import { escapeHtml } from "./html.js";
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

/** Every guide in a folder (docs/ by default), rendered, in navigation order. */
export function readGuides(dir: string): Guide[] {
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
    return undefined;
  };
  return names.map((name) => {
    const source = readFileSync(join(dir, `${name}.md`), "utf8");
    const rendered = renderMarkdown(source, { link });
    const title = rendered.title ?? name;
    let html = rendered.html;
    if (name === "client") html = withSignatureExample(html);
    return {
      name,
      title,
      html,
      headings: rendered.headings,
      source,
      page: { file: guideFile(name), label: KNOWN.get(name) ?? title, group: "guide" },
    };
  });
}

/** The worked example's inputs: made-up credentials and the contract's example date. */
export const SIGNATURE_EXAMPLE = {
  secret: "example-secret",
  date: "2026-11-22T09:30:00.000Z",
  body: '{"reference":"onboarding-3108-pep","firstname":"Aroha","lastname":"Tipene","date_of_birth":"14/03/1985"}',
} as const;

/** The worked example's signature, computed by the client's own default signer. */
export async function signatureExample(): Promise<string> {
  const sign = createHmacSigner(SIGNATURE_EXAMPLE.secret, "hex");
  return sign({
    date: SIGNATURE_EXAMPLE.date,
    body: new TextEncoder().encode(SIGNATURE_EXAMPLE.body),
    method: "POST",
    url: "https://idv.example.net/api/v4/pep_checks",
  });
}

/**
 * Mark where the worked signature example goes: at the end of the client guide's "The signature is
 * an assumption" section (before the next h2), or after the guide when the section moved.
 */
function withSignatureExample(html: string): string {
  const start = html.indexOf('id="the-signature-is-an-assumption"');
  const next = start < 0 ? -1 : html.indexOf("<h2", start);
  if (next < 0) return `${html}\n${SIGNATURE_PLACEHOLDER}`;
  return `${html.slice(0, next)}${SIGNATURE_PLACEHOLDER}\n${html.slice(next)}`;
}

/** Where the client guide's worked example goes; filled by the build (the signer is asynchronous). */
export const SIGNATURE_PLACEHOLDER = "<!--signature-worked-example-->";

/** The worked example as HTML, placed where withSignatureExample left its placeholder. */
export async function renderSignatureExample(): Promise<string> {
  const { secret, date, body } = SIGNATURE_EXAMPLE;
  const signature = await signatureExample();
  return `<aside class="worked-example" id="signature-worked-example"><h3>Worked example: a v4 signature</h3>
  <p>With the secret <code>${escapeHtml(secret)}</code>, <code>Svc-Date</code> <code>${escapeHtml(date)}</code> and this body, sent byte for byte:</p>
  <pre class="code"><code>${escapeHtml(body)}</code></pre>
  <p>the signature is HMAC-SHA256 over the date followed by the body, keyed by the secret, in hex:</p>
  <pre class="code"><code>Svc-Signature: ${escapeHtml(signature)}</code></pre>
  <p>The same with openssl:</p>
  <pre class="code"><code>printf '%s%s' '${escapeHtml(date)}' '${escapeHtml(body)}' | openssl dgst -sha256 -hmac '${escapeHtml(secret)}'</code></pre>
  <p class="meta">Computed when the site is built by the client's own signer (<code>createHmacSigner</code>); the tests check it against node:crypto.</p></aside>`;
}
