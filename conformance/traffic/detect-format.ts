// Which format a traffic file is in, from its name and first bytes, with `redocly drift`'s rules so that
// a log drift recognises is recognised here alike: `.har` and `.kong` by name; then a HAR by its `log`;
// then a gateway log by the members of its first line; else this suite's NDJSON. One departure: a
// first line that is this suite's own exchange is NDJSON even in a file named `*nginx*.ndjson`.
import type { GatewayFormat } from "./gateway-logs.js";

/** The formats a traffic file can be in. */
export type TrafficFormat = "har" | "ndjson" | GatewayFormat;

/** How many first bytes decide the format of a file whose name does not say it. */
export const HEAD_BYTES = 64 * 1024;

/** A file's format from its name alone, when the name settles it (`.ndjson` may hold a gateway log). */
export function formatByName(file: string): TrafficFormat | undefined {
  if (/\.har$/i.test(file)) return "har";
  if (/\.kong$/i.test(file)) return "kong";
  return undefined;
}

// The members that mark each log, as drift looks for them (first match wins, in this order).
const KONG_MEMBERS = ["latencies"];
const NGINX_MEMBERS = ["request_uri", "time_iso8601", "upstream_response_time", "remote_addr"];
const APACHE_MEMBERS = ["request_method", "request_uri", "vhost", "response_status"];

const BOM = "\ufeff";

/** The first non-blank line of a head, when it ends within the head. */
function firstLine(head: string): string | undefined {
  let start = 0;
  while (start < head.length) {
    const end = head.indexOf("\n", start);
    if (end < 0) return undefined;
    const line = head.slice(start, end).trim();
    if (line !== "") return line;
    start = end + 1;
  }
  return undefined;
}

/** The head's first line, when it is a whole JSON object; else undefined. */
function firstObject(head: string): Record<string, unknown> | undefined {
  const line = firstLine(head);
  if (line === undefined || !line.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a first line is this suite's own NDJSON exchange: a `request` object with its `url`, and no
 * member a gateway log is known by. Such a file is read as NDJSON whatever its name says.
 */
function isSuiteExchange(line: Record<string, unknown>, members: Set<string>): boolean {
  const request = Object.hasOwn(line, "request") ? line.request : undefined;
  const markers = [...KONG_MEMBERS, ...NGINX_MEMBERS, ...APACHE_MEMBERS, "route"];
  return (
    request !== null &&
    typeof request === "object" &&
    typeof (request as Record<string, unknown>).url === "string" &&
    !markers.some((name) => members.has(name))
  );
}

/** Which gateway log a line's members (or, when the line is not whole, the head's text) mark. */
function gatewayFormat(head: string, path: string): GatewayFormat | undefined {
  const line = firstObject(head);
  // Object.keys reads own names only: `__proto__` in the input is just a name here.
  const members = line ? new Set(Object.keys(line)) : undefined;
  if (line && members && isSuiteExchange(line, members)) return undefined;
  const lower = path.toLowerCase();
  // A first line longer than the head (a base64 upload) is judged on its text, as drift judges
  // every file, but not in a file named as this suite's NDJSON: there a body's words would decide,
  // and a gateway log's reader would skip the checks of what such a log lacks.
  if (!members && /\.(ndjson|jsonl)$/.test(lower) && firstLine(head) === undefined) return undefined;
  const has = members
    ? (name: string) => members.has(name)
    : (name: string) => head.toLowerCase().includes(`"${name}"`);
  if (KONG_MEMBERS.some(has) || (has("request") && has("response") && has("route"))) return "kong";
  if (/\.ndjson$/.test(lower) && lower.includes("nginx")) return "nginx-json";
  if (NGINX_MEMBERS.some(has)) return "nginx-json";
  if (/\.ndjson$/.test(lower) && lower.includes("apache")) return "apache-json";
  if (APACHE_MEMBERS.some(has)) return "apache-json";
  return undefined;
}

/**
 * A format from a source's name and first bytes: a HAR is one object whose first member is `log`; a
 * gateway log is known by its first line; anything else is read as NDJSON, one exchange a line.
 */
export function formatByHead(head: Buffer, path: string): TrafficFormat {
  let text = head.toString("utf8");
  if (text.startsWith(BOM)) text = text.slice(1);
  if (/^\s*\{\s*"log"\s*:/.test(text)) return "har";
  return gatewayFormat(text, path) ?? "ndjson";
}
