import { assertParseable } from "./json-bounds.js";
import type { Withheld } from "../findings/withheld.js";
import type { FormPart, RecordedBody } from "../../src/contract/body.js";

export type { FormPart, RecordedBody };

/**
 * Header names lower-cased; repeated headers joined with ", ". The readers make it without a prototype
 * (recorded names are input); a caller's own object is only ever read by the contract's header names.
 */
export type HeaderMap = Record<string, string>;

/** A request as recorded, normalised from HAR or NDJSON. */
export interface RecordedRequest {
  method: string;
  /** The path, without query string; not yet stripped of any base path. */
  path: string;
  /** Recorded query parameters (without a prototype when read from a file). */
  query: Record<string, string[]>;
  headers: HeaderMap;
  body?: RecordedBody;
  /** True when the recording shows a body was sent but did not keep it (a browser's upload). */
  bodyNotRecorded?: boolean;
}

/** A response as recorded; `status` 0 when the recorder saw none. */
export interface RecordedResponse {
  status: number;
  headers: HeaderMap;
  body?: RecordedBody;
  /** True when the recorder says there was a body but did not keep it. */
  bodyNotRecorded?: boolean;
}

/**
 * Why an entry read from a file is not judged: the browser saw no answer (a HAR status of 0 or -1: the
 * request failed, was blocked or aborted), or the entry is larger than the reader takes (it was not read).
 */
export type Unjudged =
  { reason: "no-answer"; status: number } | { reason: "too-large"; bytes: number; limit: number };

/**
 * The parts of an exchange a log format does not record (a gateway's access log keeps no bodies, often
 * no headers). They are never checked, so nothing absent becomes a violation; the reader says so once a
 * run for each part, not once an entry (see gateway-logs.ts).
 */
export interface NotRecorded {
  requestHeaders?: boolean;
  requestBody?: boolean;
  responseHeaders?: boolean;
  responseBody?: boolean;
}

/** One API exchange read from a traffic file. */
export interface Exchange {
  /** The entry's position in its file, from 0. */
  index: number;
  /** The line of an NDJSON file, from 1. */
  line?: number;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Set by the readers when the entry is reported rather than checked (see Unjudged). */
  unjudged?: Unjudged;
  /** What the recording withheld, and the live findings there (findings/withheld.ts). */
  withheld?: Withheld;
  /** What the log format did not record: judged as unknown, never as absent. */
  notRecorded?: NotRecorded;
}

/** Whether a body is absent or has no bytes. */
export function isEmptyBody(body: RecordedBody | undefined): boolean {
  if (!body) return true;
  if (body.kind === "text") return body.text.length === 0;
  if (body.kind === "bytes") return body.bytes.length === 0;
  return false;
}

/** What parseJson gives for a body that is not JSON. */
export const NOT_JSON = Symbol("not JSON");

/**
 * Whether a text cannot start a JSON value: its first non-blank character opens none. Such bodies
 * (a PDF, an HTML page, multipart) are common in broken traffic, and a throwing JSON.parse is slow.
 */
function cannotBeJson(text: string): boolean {
  let i = 0;
  let c = text.charCodeAt(0);
  // JSON's whitespace: space, tab, line feed, carriage return.
  while (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) c = text.charCodeAt(++i);
  // An object, an array, a string, true, false or null: JSON.parse decides.
  if (c === 0x7b || c === 0x5b || c === 0x22 || c === 0x74 || c === 0x66 || c === 0x6e) return false;
  // A number: a digit, or a minus sign followed by one.
  if (c === 0x2d) c = text.charCodeAt(i + 1);
  return !(c >= 0x30 && c <= 0x39);
}

// JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are not JSON, rather than U+FFFD in disguise.
// Made on first use: constructing a decoder loads ICU, which start-up does not need.
let utf8: TextDecoder | undefined;

/** String.prototype.isWellFormed (ES2024, in Node 20), which the ES2022 library types do not declare. */
type WellFormed = string & { isWellFormed(): boolean };

/** The JSON value of a body, or NOT_JSON when it does not parse (or its bytes are not UTF-8). */
export function parseJson(body: RecordedBody): unknown {
  if (body.kind === "json") return body.value;
  if (body.kind === "form") return NOT_JSON;
  let text: string;
  if (body.kind === "text") {
    text = body.text;
    // A lone surrogate cannot come from UTF-8 bytes: the recorder decoded bytes that were not UTF-8.
    if (!(text as WellFormed).isWellFormed()) return NOT_JSON;
  } else {
    try {
      utf8 ??= new TextDecoder("utf-8", { fatal: true });
      text = utf8.decode(body.bytes);
    } catch {
      return NOT_JSON;
    }
  }
  if (cannotBeJson(text)) return NOT_JSON;
  // A large body is measured before it is parsed (throws JsonTooCostly: the entry cannot be checked).
  assertParseable(text);
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
