// Gateway access logs, one JSON object a line: Kong's file-log and http-log entries, and Nginx or Apache
// access logs written as JSON. Members are read under the names `redocly drift` reads (the same
// alternatives, in the same order), so a log that drift reads is read here alike. Such logs keep no
// bodies and often no headers: what an entry does not carry is marked not recorded (never checked)
// rather than absent (which the checks would report).
import type { Exchange, HeaderMap, NotRecorded, RecordedBody } from "./exchange.js";
import { EntryError, type Raw } from "./input-error.js";
import { normalizeBody, normalizeHeaders, scalarNumber, splitUrl } from "./normalize.js";
import { shownText } from "../findings/shown.js";

/** The gateway log formats, under the names `redocly drift --traffic-format` gives them. */
export type GatewayFormat = "kong" | "nginx-json" | "apache-json";

/** The parts a log may leave out, as notices name them. */
export type UnrecordedPart = keyof NotRecorded;

/** A part of an exchange a log did not record, said once a run for each part. */
export interface UnrecordedNotice {
  file: string;
  format: GatewayFormat;
  part: UnrecordedPart;
}

const isObject = (value: unknown): value is Raw =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** An entry that is not an object: an array says the log was written as batches (Kong's http-log queue). */
function assertEntry(raw: Raw): void {
  if (Array.isArray(raw))
    throw new EntryError(
      "is a JSON array; a gateway log is read one JSON object a line (as Kong's file-log writes it)",
    );
  if (!isObject(raw)) throw new EntryError("is not a JSON object");
}

/** The first of `values` that is neither undefined nor null. */
function firstGiven(...values: unknown[]): unknown {
  for (const value of values) if (value !== undefined && value !== null) return value;
  return undefined;
}

/** A recorded string, or undefined for anything else (never a converted object). */
const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;

/** Method, path and query of a request line, `GET /path?query HTTP/1.1` (Nginx's `$request`). */
function requestLine(value: unknown): { method?: string; target?: string } {
  const parts = typeof value === "string" ? value.trim().split(/\s+/) : [];
  return parts.length < 2 ? {} : { method: parts[0], target: parts[1] };
}

/** Headers when the log has them; undefined marks them not recorded. */
function headersOf(raw: unknown, where: string): HeaderMap | undefined {
  if (raw === undefined || raw === null || raw === "-") return undefined;
  return normalizeHeaders(raw, where);
}

/** A body when the log has one; `"-"` is an access log's empty value. Undefined marks it not recorded. */
function bodyOf(raw: unknown, where: string): { body?: RecordedBody } | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === "-" || raw === "") return {};
  return { body: normalizeBody(raw, undefined, where) };
}

interface Parts {
  method: unknown;
  target: unknown;
  requestHeaders: unknown;
  requestBody: unknown;
  /** Undefined when the entry records no response. */
  status: unknown;
  responseHeaders: unknown;
  responseBody: unknown;
}

/** An exchange from the members a format names; what is missing is marked, never guessed. */
function exchangeOf(parts: Parts, index: number, line: number): Exchange {
  if (typeof parts.method !== "string" || parts.method === "") throw new EntryError("has no request method");
  if (typeof parts.target !== "string" || parts.target === "")
    throw new EntryError("has no request URL or path");
  const target = splitUrl(parts.target);
  const notRecorded: NotRecorded = {};
  const requestHeaders = headersOf(parts.requestHeaders, "request headers");
  if (!requestHeaders) notRecorded.requestHeaders = true;
  const requestBody = bodyOf(parts.requestBody, "request body");
  if (!requestBody) notRecorded.requestBody = true;
  const exchange: Exchange = {
    index,
    line,
    request: {
      method: parts.method.toUpperCase(),
      path: target.path,
      query: target.query,
      headers: requestHeaders ?? normalizeHeaders(undefined, ""),
      body: requestBody?.body,
    },
  };
  if (parts.status !== undefined && parts.status !== null) {
    const status = scalarNumber(parts.status);
    if (!Number.isInteger(status) || status < 0 || status > 999)
      throw new EntryError("response status is not an HTTP status");
    const responseHeaders = headersOf(parts.responseHeaders, "response headers");
    if (!responseHeaders) notRecorded.responseHeaders = true;
    const responseBody = bodyOf(parts.responseBody, "response body");
    if (!responseBody) notRecorded.responseBody = true;
    exchange.response = {
      status,
      headers: responseHeaders ?? normalizeHeaders(undefined, ""),
      body: responseBody?.body,
    };
  }
  exchange.notRecorded = notRecorded;
  return exchange;
}

/** A Kong file-log or http-log entry: `request.{method, url | uri, headers}`, `response.{status, headers}`. */
export function exchangeFromKong(raw: Raw, index: number, line: number): Exchange {
  assertEntry(raw);
  const req = firstGiven(raw.request, raw.req, isObject(raw.http) ? raw.http.request : undefined);
  if (!isObject(req)) throw new EntryError("has no request object");
  const given = firstGiven(raw.response, raw.res, isObject(raw.http) ? raw.http.response : undefined);
  const res: Raw = isObject(given) ? given : {};
  return exchangeOf(
    {
      method: firstGiven(req.method, req.http_method),
      target: text(firstGiven(req.url, req.uri)) ?? text(firstGiven(req.path, req.request_uri)),
      requestHeaders: req.headers,
      requestBody: firstGiven(req.body, req.raw_body, req.payload, req.data),
      status: firstGiven(res.status, res.statusCode),
      responseHeaders: res.headers,
      responseBody: firstGiven(res.body, res.raw_body, res.payload, res.data),
    },
    index,
    line,
  );
}

/**
 * An Nginx or Apache JSON access log entry: flat (`request_method`, `request_uri`, `status`, …) or with
 * `request` and `response` objects; `request` may instead be the request line.
 */
export function exchangeFromAccessLog(raw: Raw, index: number, line: number): Exchange {
  assertEntry(raw);
  const req: Raw = isObject(raw.request) ? raw.request : raw;
  const res: Raw = isObject(raw.response) ? raw.response : {};
  const first = requestLine(isObject(raw.request) ? req.request_line : raw.request);
  const target =
    text(firstGiven(req.url, req.request_uri, req.uri, raw.url, raw.request_url, raw.absolute_uri)) ??
    text(firstGiven(req.path, raw.request_uri, raw.uri)) ??
    first.target;
  return exchangeOf(
    {
      method: firstGiven(req.method, req.request_method, raw.request_method, raw.method) ?? first.method,
      target,
      requestHeaders: firstGiven(req.headers, req.request_headers, raw.request_headers, raw.headers),
      requestBody: firstGiven(req.body, req.request_body, raw.request_body, raw.body),
      status: firstGiven(res.status, res.status_code, raw.status, raw.status_code, raw.response_status),
      responseHeaders: firstGiven(res.headers, res.response_headers, raw.response_headers, raw.headers_out),
      responseBody: firstGiven(res.body, res.response_body, raw.response_body),
    },
    index,
    line,
  );
}

/** The reader of each gateway format's entries. */
export const GATEWAY_READERS: Record<GatewayFormat, (raw: Raw, index: number, line: number) => Exchange> = {
  kong: exchangeFromKong,
  "nginx-json": exchangeFromAccessLog,
  "apache-json": exchangeFromAccessLog,
};

const PARTS: UnrecordedPart[] = ["requestHeaders", "requestBody", "responseHeaders", "responseBody"];

/** Each part an exchange did not record and `said` does not hold yet, added to `said`. */
export function newlyUnrecorded(exchange: Exchange, said: Set<UnrecordedPart>): UnrecordedPart[] {
  const fresh: UnrecordedPart[] = [];
  const unknown = exchange.notRecorded;
  if (!unknown) return fresh;
  for (const part of PARTS)
    if (unknown[part] && !said.has(part)) {
      said.add(part);
      fresh.push(part);
    }
  return fresh;
}

const PART_WORDS: Record<UnrecordedPart, string> = {
  requestHeaders: "request headers",
  requestBody: "request bodies",
  responseHeaders: "response headers",
  responseBody: "response bodies",
};

const FORMAT_WORDS: Record<GatewayFormat, string> = {
  kong: "Kong log",
  "nginx-json": "Nginx JSON access log",
  "apache-json": "Apache JSON access log",
};

/** A notice in words: what was not recorded, and that it was not checked (the file's name shown as text). */
export const describeNotice = ({ file, format, part }: UnrecordedNotice): string =>
  `${shownText(file)} (${FORMAT_WORDS[format]}) does not record ${PART_WORDS[part]}: they are not checked (not a violation)`;
