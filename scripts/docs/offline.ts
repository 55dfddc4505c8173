/**
 * Keeping a built page free of network loads. Redocly's `--inlineBundle` page inlines its scripts
 * and styles, but its bundle still names a few CDN assets (the "API docs by Redocly" logo, icon
 * packs). They are pointed at files under assets/ instead, and the page is then checked.
 */

/** CDN prefixes in Redocly's bundle and the local prefix each is rewritten to. */
const CDN_REWRITES: readonly (readonly [string, string])[] = [
  ["https://cdn.redoc.ly/redoc/logo-mini-full.svg", "assets/redocly-logo.svg"],
  ["https://cdn.redoc.ly/redoc/logo-mini.svg", "assets/redocly-logo.svg"],
  // Icon packs are loaded only for icons named in a Redocly config, which this site has none of;
  // any use would show up as a local 404 in the browser test instead of a silent remote load.
  ["https://cdn.redocly.com/icons/fa/7.0.0", "assets/icons/fa"],
  ["https://cdn.redocly.com/icons/code/5.24.0", "assets/icons/code"],
];

/** Hosts that serve page assets; none may remain anywhere in a built page. */
const ASSET_HOSTS = [
  "cdn.redoc.ly",
  "cdn.redocly.com",
  "fonts.googleapis.com",
  "fonts.gstatic.com",
  "unpkg.com",
  "cdn.jsdelivr.net",
  "cdnjs.cloudflare.com",
] as const;

/** Rewrite CDN asset URLs to local ones and drop font links (the page falls back to system fonts). */
export function localiseAssets(html: string): string {
  let out = html;
  for (const [from, to] of CDN_REWRITES) out = out.split(from).join(to);
  // Google Fonts come as <link rel="preconnect|stylesheet" href="https://fonts…">; the CSS keeps
  // its own font stack, so dropping the links changes the typeface only.
  return out.replace(
    /<link\b[^>]*\bhref\s*=\s*["']?https?:\/\/fonts\.(?:googleapis|gstatic)\.com[^>]*>\s*/gi,
    "",
  );
}

/** One reference that would make the browser fetch something from another host. */
export interface ExternalLoad {
  url: string;
  /** The markup or CSS it was found in, shortened. */
  context: string;
}

const LOAD_PATTERNS: RegExp[] = [
  // Elements that fetch their src/href (a plain <a href> is navigation, not a load).
  /<(?:script|img|iframe|source|video|audio|embed|track|input)\b[^>]*?\b(?:src|srcset|poster)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
  /<link\b[^>]*?\bhref\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
  /<object\b[^>]*?\bdata\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
  // CSS: url(...) and @import "...".
  /url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
  /@import\s+["']((?:https?:)?\/\/[^"']+)/gi,
];

/** Every external load a page's markup, CSS or bundle would make, plus any mention of an asset host. */
export function findExternalLoads(html: string): ExternalLoad[] {
  const found: ExternalLoad[] = [];
  for (const pattern of LOAD_PATTERNS) {
    for (const match of html.matchAll(pattern)) {
      found.push({ url: match[1] ?? "", context: match[0].slice(0, 160) });
    }
  }
  for (const host of ASSET_HOSTS) {
    let at = html.indexOf(host);
    while (at !== -1) {
      found.push({ url: host, context: html.slice(Math.max(0, at - 60), at + 80) });
      at = html.indexOf(host, at + host.length);
    }
  }
  return found;
}
