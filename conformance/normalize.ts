import type { FormPart, HeaderMap, RecordedBody } from "./exchange.js";

// Recorded traffic is read structurally and checked by hand.
export type Raw = any;

/** Thrown for a malformed part of an entry; the reader adds the file and entry. */
export class EntryError extends Error {}

function addHeader(out: HeaderMap, name: unknown, value: unknown, where: string): void {
  if (typeof name !== "string") throw new EntryError(`${where}: a header has no name`);
  const key = name.toLowerCase();
  const text =
    typeof value === "string"
      ? value
      : Array.isArray(value)
        ? value.map(String).join(", ")
        : String(value ?? "");
  const before = out[key];
  out[key] = before === undefined ? text : `${before}, ${text}`;
}

/**
 * Whether parsed headers already are a HeaderMap (names lower-case, values text), as recorders mostly
 * write them: then they are used as they are rather than copied, header by header, for every exchange.
 */
function isNormalized(raw: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(raw) !== Object.prototype) return false;
  for (const name in raw) {
    if (!Object.hasOwn(raw, name)) return false;
    // "__proto__" cannot be copied as a plain member; the copying path decides what it becomes.
    if (typeof raw[name] !== "string" || name.toLowerCase() !== name || name === "__proto__") return false;
  }
  return true;
}

/** Headers from an object (`{name: value}`) or a HAR-style array (`[{name, value}]`), names lower-cased. */
export function normalizeHeaders(raw: Raw, where: string): HeaderMap {
  const out: HeaderMap = {};
  if (raw === undefined || raw === null) return out;
  if (Array.isArray(raw)) {
    for (const h of raw) {
      if (h === null || typeof h !== "object")
        throw new EntryError(`${where}: a header is not an object {name, value}`);
      addHeader(out, h.name, h.value, where);
    }
  } else if (typeof raw === "object") {
    if (isNormalized(raw)) return raw;
    for (const name in raw) addHeader(out, name, raw[name], where);
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

/** The path and query of a URL, an origin-relative path, or a path given with a separate query. */
export function splitUrl(url: string): { path: string; query: Record<string, string[]> } {
  // Fast path for the common case (absolute or origin-relative URL, no query, nothing to normalise);
  // anything else goes through the WHATWG parser.
  if (url.indexOf("?") < 0 && url.indexOf("#") < 0 && url.indexOf("\\") < 0 && url.indexOf("/.") < 0) {
    if (url.charCodeAt(0) === 47 && url.charCodeAt(1) !== 47) return { path: url, query: {} };
    const scheme = url.indexOf("://");
    if ((scheme === 4 || scheme === 5) && isHttpScheme(url, scheme)) {
      const slash = url.indexOf("/", scheme + 3);
      return { path: slash < 0 ? "/" : url.slice(slash), query: {} };
    }
  }
  let parsed: URL;
  try {
    parsed = new URL(url, "http://recorded.invalid");
  } catch {
    throw new EntryError("request.url is not a URL");
  }
  const query: Record<string, string[]> = {};
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
  const out: Record<string, string[]> = {};
  if (Array.isArray(raw)) {
    for (const q of raw) if (q && typeof q.name === "string") addQuery(out, q.name, String(q.value ?? ""));
  } else if (raw && typeof raw === "object") {
    for (const [name, value] of Object.entries(raw)) out[name] = [value].flat().map(String);
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

/** The parts of a HAR `postData.params` list (values are measured, not kept). */
export function harFormParts(params: Raw[]): FormPart[] {
  return params.map((p) => ({
    name: String(p?.name ?? ""),
    fileName: typeof p?.fileName === "string" ? p.fileName : undefined,
    contentType: typeof p?.contentType === "string" ? p.contentType.toLowerCase() : undefined,
    size: typeof p?.value === "string" ? Buffer.byteLength(p.value) : 0,
  }));
}
