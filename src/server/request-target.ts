// The request line's target, parsed without ever throwing: `new URL(target, base)` reads `//x` as
// a host and throws on `//%zz/api`, `http://` or `//a:99999/x`, so the path is split by hand.

/**
 * Bytes of a request target the in-process adapters read at most: Node's parser refuses a request
 * head longer than 16 KiB (its default maxHeaderSize, answered 431), so no target longer reaches a
 * handler over HTTP; one longer in this process is answered 414 before anything parses it.
 */
export const MAX_TARGET_BYTES = 16 * 1024;

/** A request target reduced to what a router needs. */
export interface RequestTarget {
  /** The path as sent (still percent-encoded), always starting with `/`. */
  pathname: string;
  /** The query without its `?`; empty when there is none. */
  query: string;
}

/**
 * The path and query of a request target (RFC 9112 §3.2): origin-form (`/a/b?c`) as sent, and the
 * path of absolute-form (`http://host/a?c`). Undefined for the asterisk form (`*`), authority form,
 * a malformed absolute URL, or a target holding characters a request line cannot carry.
 */
export function parseRequestTarget(raw: string | undefined): RequestTarget | undefined {
  if (raw === undefined || raw.length === 0) return undefined;
  // Node's parser already refuses most of these; a target reaching here from elsewhere is checked too.
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x23 /* # */) return undefined;
  }
  let target = raw;
  if (!raw.startsWith("/")) {
    if (!/^https?:\/\//i.test(raw)) return undefined;
    try {
      const url = new URL(raw);
      target = url.pathname + url.search;
    } catch {
      return undefined;
    }
  }
  const q = target.indexOf("?");
  return q < 0
    ? { pathname: target, query: "" }
    : { pathname: target.slice(0, q), query: target.slice(q + 1) };
}

/** One path segment percent-decoded, or undefined when its encoding is broken (`%zz`, bad UTF-8). */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The query's parameters as a null-prototype record (a name such as `__proto__` stays a name);
 * a repeated name keeps every value in order. Never throws: broken escapes stay as sent. Linear in
 * the query's length: a repeated name's values are pushed onto one list, never copied into a new one.
 */
export function queryRecord(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}
