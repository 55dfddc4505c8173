// Media types matched by their essence (RFC 9110 §8.3.1), never by prefix: `application/json-evil`
// is not JSON, `application/problem+json` is.

/** A parsed Content-Type: lower-cased type and subtype, and parameters by lower-cased name. */
export interface MediaType {
  type: string;
  subtype: string;
  /** The structured-syntax suffix (`json` of `problem+json`), if any. */
  suffix?: string;
  parameters: Map<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;

/** A Content-Type header value parsed, or undefined when it is not `type/subtype *(; name=value)`. */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const [essence = "", ...rest] = header.split(";");
  const slash = essence.indexOf("/");
  if (slash < 0) return undefined;
  const type = essence.slice(0, slash).trim().toLowerCase();
  const subtype = essence
    .slice(slash + 1)
    .trim()
    .toLowerCase();
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  const parameters = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (TOKEN.test(name) && !parameters.has(name)) parameters.set(name, value);
  }
  const plus = subtype.lastIndexOf("+");
  const suffix = plus > 0 ? subtype.slice(plus + 1) : undefined;
  return suffix === undefined ? { type, subtype, parameters } : { type, subtype, suffix, parameters };
}

/**
 * Whether a Content-Type is JSON the servers can read: `application/json` or any `…/…+json`, with no
 * charset or a UTF-8 one (JSON is exchanged as UTF-8, RFC 8259 §8.1; a body declared UTF-16 would
 * otherwise be read as UTF-8).
 */
export function isJsonMediaType(header: string | undefined): boolean {
  const media = parseMediaType(header);
  if (!media) return false;
  const charset = media.parameters.get("charset")?.toLowerCase();
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") return false;
  return (media.type === "application" && media.subtype === "json") || media.suffix === "json";
}

/**
 * Whether a media type essence (`type/subtype`, lower-cased, no parameters, as a contract's content
 * keys and a recording's parsed Content-Type give it) is JSON: `application/json` or a `type/name+json`
 * structured-syntax suffix. Unlike isJsonMediaType it reads no charset: it names, it does not admit.
 */
export function isJsonEssence(essence: string): boolean {
  if (essence === "application/json") return true;
  const slash = essence.indexOf("/");
  const plus = essence.lastIndexOf("+");
  return slash > 0 && plus > slash + 1 && essence.slice(plus) === "+json";
}

/** Whether a Content-Type has the essence `type/subtype` (e.g. `multipart/form-data`), parameters allowed. */
export function hasEssence(header: string | undefined, essence: string): boolean {
  const media = parseMediaType(header);
  return media !== undefined && `${media.type}/${media.subtype}` === essence.toLowerCase();
}
