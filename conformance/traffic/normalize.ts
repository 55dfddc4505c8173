import type { FormPart, HeaderMap, RecordedBody } from "./exchange.js";
import { multipartBoundary } from "../../src/contract/multipart.js";
import { EntryError, type Raw } from "./input-error.js";

/** An empty map keyed by recorded names: no prototype, so `__proto__` or `constructor` is just a name. */
export const emptyMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/**
 * The text of a recorded scalar. Never `String(value)` on an object: a parsed object may carry its own
 * `toString` or `valueOf` member, and converting it would throw or run input-named members.
 */
export function scalarText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}

/** A recorded number (a number, or a string of digits), else NaN. */
export function scalarNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return Number.NaN;
}

function addHeader(out: HeaderMap, name: unknown, value: unknown, where: string): void {
  if (typeof name !== "string") throw new EntryError(`${where}: a header has no name`);
  const key = name.toLowerCase();
  const text = Array.isArray(value) ? value.map(scalarText).join(", ") : scalarText(value);
  const before = out[key];
  out[key] = before === undefined ? text : `${before}, ${text}`;
}

/** Headers from an object (`{name: value}`) or a HAR-style array (`[{name, value}]`), names lower-cased. */
export function normalizeHeaders(raw: Raw, where: string): HeaderMap {
  const out: HeaderMap = emptyMap();
  if (raw === undefined || raw === null) return out;
  if (Array.isArray(raw)) {
    for (const h of raw) {
      if (h === null || typeof h !== "object")
        throw new EntryError(`${where}: a header is not an object {name, value}`);
      addHeader(out, h.name, h.value, where);
    }
  } else if (typeof raw === "object") {
    // Copied even when already lower-case: the parsed object has a prototype, and its names are input.
    for (const name of Object.keys(raw)) addHeader(out, name, raw[name], where);
  } else {
    throw new EntryError(`${where} must be an object or an array of {name, value}`);
  }
  return out;
}

/** Whether `url` starts with `http` or `https` (any case) ending at `end`. */
function isHttpScheme(url: string, end: number): boolean {
  const scheme = url.slice(0, end).toLowerCase();
  return scheme === "http" || scheme === "https";
}

/**
 * What the WHATWG URL parser strips, re-encodes or ends the query at: anything but printable ASCII
 * (controls, space, non-ASCII: URLSearchParams alone decodes such text differently), `\`, `#`.
 */
const NEEDS_URL_PARSER = /[^\x21-\x7e]|[\\#]/;

/** The path and query of a URL, an origin-relative path, or a path given with a separate query. */
export function splitUrl(url: string): { path: string; query: Record<string, string[]> } {
  // Fast path for the common case (absolute or origin-relative URL, no query, nothing to normalise);
  // anything else goes through the WHATWG parser.
  if (url.indexOf("?") < 0 && url.indexOf("#") < 0 && url.indexOf("\\") < 0 && url.indexOf("/.") < 0) {
    if (url.charCodeAt(0) === 47 && url.charCodeAt(1) !== 47) return { path: url, query: emptyMap() };
    const scheme = url.indexOf("://");
    if ((scheme === 4 || scheme === 5) && isHttpScheme(url, scheme)) {
      const slash = url.indexOf("/", scheme + 3);
      return { path: slash < 0 ? "/" : url.slice(slash), query: emptyMap() };
    }
  }
  // Printable ASCII with nothing the URL parser would strip or re-encode first: the path as above, the query read by URLSearchParams alone, which is what
  // `URL.searchParams` gives for it, without parsing the whole URL. (URLSearchParams drops one leading
  // `?`, which in a URL belongs to the query: `??` goes to the parser.)
  const mark = url.indexOf("?");
  if (
    mark > 0 &&
    url.charCodeAt(mark + 1) !== 0x3f &&
    !NEEDS_URL_PARSER.test(url) &&
    url.lastIndexOf("/.", mark) < 0
  ) {
    const head = splitUrl(url.slice(0, mark));
    for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) addQuery(head.query, name, value);
    return head;
  }
  let parsed: URL;
  try {
    parsed = new URL(url, "http://recorded.invalid");
  } catch {
    throw new EntryError("request.url is not a URL");
  }
  const query = emptyMap<string[]>();
  for (const [name, value] of parsed.searchParams) addQuery(query, name, value);
  return { path: parsed.pathname, query };
}

function addQuery(query: Record<string, string[]>, name: string, value: string): void {
  const list = query[name];
  if (list) list.push(value);
  else query[name] = [value];
}

/** Query parameters from an object or a HAR-style array. */
export function normalizeQuery(raw: Raw): Record<string, string[]> {
  const out = emptyMap<string[]>();
  if (Array.isArray(raw)) {
    for (const q of raw) if (q && typeof q.name === "string") addQuery(out, q.name, scalarText(q.value));
  } else if (raw && typeof raw === "object") {
    for (const name of Object.keys(raw)) out[name] = [raw[name]].flat().map(scalarText);
  }
  return out;
}

/** A body from text, base64 text or an already parsed JSON value. */
export function normalizeBody(value: Raw, encoding: unknown, where: string): RecordedBody | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") {
    if (encoding === "base64") {
      // Buffer.from ignores stray characters; check the alphabet so a mislabelled body is reported.
      if (!/^[A-Za-z0-9+/=\s_-]*$/.test(value))
        throw new EntryError(`${where} is marked base64 but is not base64`);
      return { kind: "bytes", bytes: Buffer.from(value, "base64") };
    }
    return { kind: "text", text: value };
  }
  return { kind: "json", value };
}

/**
 * The parts of a HAR `postData.params` list (values are measured, not kept). A part without a value
 * may give its size in `_size`, as the suite's recordings do: they keep no value.
 */
export function harFormParts(params: Raw[]): FormPart[] {
  return params.map((p) => ({
    name: scalarText(p?.name),
    fileName: typeof p?.fileName === "string" ? p.fileName : undefined,
    contentType: typeof p?.contentType === "string" ? p.contentType.toLowerCase() : undefined,
    size:
      typeof p?.value === "string"
        ? Buffer.byteLength(p.value)
        : Number.isSafeInteger(p?._size) && p._size >= 0
          ? p._size
          : 0,
  }));
}

/**
 * The request's own Content-Type when a HAR lists several, else undefined (the headers say it as they
 * are). Firefox's export appends the header lines that open a multipart body to the request's headers
 * whenever the body does not start with "---" (CurlUtils.getHeadersFromMultipartText, called from
 * HarBuilder.appendHeadersPostData): the first part's Content-Type then follows the request's own. The
 * request's is the multipart one whose boundary delimits the recorded body; the first such is taken,
 * as Firefox writes the request's own headers before what it appends.
 */
export function requestContentType(rawHeaders: Raw, postText: unknown): string | undefined {
  if (!Array.isArray(rawHeaders) || typeof postText !== "string") return undefined;
  const values: string[] = [];
  for (const h of rawHeaders)
    if (h && typeof h === "object" && typeof h.name === "string" && h.name.toLowerCase() === "content-type")
      values.push(scalarText(h.value));
  if (values.length < 2) return undefined;
  return values.find((value) => {
    const boundary = multipartBoundary(value);
    return boundary !== undefined && postText.includes(`--${boundary}`);
  });
}
