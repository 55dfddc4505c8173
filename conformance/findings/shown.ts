// Text a report shows that it did not write itself: a file name from the command line, a contract's
// words, a coverage report's title. One escaping function per output, so that such text is always
// shown as text: never a control character (a terminal obeys ESC, a log splits at a newline), never
// a line the GitHub Actions runner reads as a workflow command, never Markdown or HTML that renders.

/**
 * The characters never written as they are: C0 and C1 controls and DEL, the Unicode line and
 * paragraph separators, and the bidirectional controls that reorder what a terminal shows.
 */
const UNSHOWN = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** A lone surrogate: no encoding can write it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string any encoding can write: each lone surrogate becomes U+FFFD, as a UTF-8 encoder writes it. */
export const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, "\uFFFD");

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** One unshown character as printable ASCII: `\n`, `\x1b`, `\u2028`. */
const visible = (c: string): string => {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * Text for a terminal or a log line (the text report, stderr, the coverage summary): every control
 * character shown as an escape (`\n`, `\x1b`), so it stays on its line and commands nothing. The
 * runner reads a line starting with `::` (after whitespace) as a workflow command and `##[` anywhere
 * as its older form: a leading `::` and every `##[` get a colon or a hash shown as `\x3a` or `\x23`.
 * Written only with printable characters, so showing it again changes nothing.
 */
export function shownText(s: string): string {
  return s
    .replace(UNSHOWN, visible)
    .replace(LONE_SURROGATE, "\uFFFD")
    .replace(/^(\s*):(?=:)/u, "$1\\x3a")
    .replace(/#(?=#\[)/g, "\\x23");
}

/**
 * A workflow command's message: `%`, CR and LF escaped as the runner reads them back (%25, %0D, %0A),
 * and every other control character shown as an escape (`\x1b`): the runner would write it as it is.
 * (A `##[` stays: a line the runner reads as a command is not read again for the older form.)
 */
export const escapeData = (s: string): string =>
  s
    .replace(LONE_SURROGATE, "\uFFFD")
    .replace(/[%\r\n]|[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, (c) =>
      c === "%" ? "%25" : c === "\r" ? "%0D" : c === "\n" ? "%0A" : visible(c),
    );

/** A workflow command's property value: as data, and `:` and `,` escaped too (%3A, %2C). */
export const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

/**
 * Markdown text (a job summary's table cell): shown as text first, then each character that can open
 * markup backslash-escaped, as CommonMark allows for any ASCII punctuation: `[` `]` (links, images),
 * `<` `>` (HTML, autolinks), `&` (entities), `:` `.` `@` (GitHub's bare URL, `www.` and e-mail
 * links), `|` (a table's cells), `` ` `` `*` `_` `~` `#` `$` (code, emphasis, headings, math) and
 * the backslash itself. The cell renders the characters, never markup.
 */
export const markdownText = (s: string): string =>
  shownText(s).replace(/[\\`*_[\]<>#.|~&$:@]/g, (c) => `\\${c}`);

const XML_ESCAPES = new Map([
  ["<", "&lt;"],
  [">", "&gt;"],
  ["&", "&amp;"],
  ['"', "&quot;"],
  ["'", "&apos;"],
]);

/**
 * Text as XML character data or an attribute value. A character XML 1.0 cannot hold at all, even as a
 * reference (a control character, a lone surrogate, U+FFFE), becomes U+FFFD: a file name on the command
 * line or a name in a `--spec` contract may hold one, and a report a parser refuses is no report.
 */
export const xml = (s: string): string =>
  s.replace(
    /[<>&"']|[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu,
    (c) => XML_ESCAPES.get(c) ?? "\uFFFD",
  );

/** Text for one line of a JUnit report: shown as text (`\n`, `\x1b`), then as XML. */
export const xmlText = (s: string): string => xml(shownText(s));

/**
 * JSON text with nothing a terminal or a log obeys: JSON.stringify escapes C0 controls and lone
 * surrogates but writes DEL, the C1 controls and U+2028/U+2029 as they are, and a `##[` (the runner's
 * older command form, read anywhere in a line) too. Those occur only inside strings, where `\uXXXX`
 * is the same value: a reader gets exactly what was stringified.
 */
export const jsonText = (value: unknown, space?: number): string =>
  JSON.stringify(value, null, space).replace(
    /[\u007f-\u009f\u2028\u2029]|#(?=#\[)/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
