// The validating proxy's recording: a HAR 1.2 file written entry by entry, with credentials and
// personal data redacted. Headers keep only the names and values the contract and HTTP describe
// (proxy-har-headers.ts); a JSON body keeps its shape, numbers, booleans and the contract's own words
// (enum and const values), and every other string becomes "[redacted]"; other bodies keep only their
// media type and size.
import { createWriteStream, type WriteStream } from "node:fs";
import { REDACTED } from "../../src/redact.js";
import { decodeJsonBody, MAX_JSON_DEPTH } from "../../src/server/index.js";
import { Vocabulary } from "../../src/vocabulary.js";
import { HeaderRedactor } from "./har-headers.js";
import { mediaTypeEssence } from "../findings/redact.js";
import { safeMethod } from "../findings/vocabulary.js";

// A contract document is walked structurally.
type Json = any;

/** One side of an exchange as the proxy saw it. */
export interface HarMessage {
  /** [name, value] pairs in the order received. */
  headers: [string, string][];
  /** The decoded body when it was kept whole; undefined when absent or over the capture limit. */
  body?: Buffer;
  /** The body's size in bytes as it crossed the proxy. */
  size: number;
}

/** An exchange for the recording. */
export interface HarExchange {
  startedAt: Date;
  durationMs: number;
  method: string;
  /** Where the request went: the upstream's origin, the path and query as sent (redacted by the recorder). */
  target: { origin: string; pathname: string; query: string };
  request: HarMessage;
  status: number;
  response: HarMessage;
}

/** A short integer id or a UUID: the identifiers the contract's paths carry, not personal data. */
const ID_SEGMENT =
  /^(0|[1-9][0-9]{0,11})(\.pdf)?$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.pdf)?$/i;

/** Names the contract writes are kept; any other becomes `[redacted]1`, `[redacted]2`, … in order. */
function nameMasker(words: Vocabulary): (name: string) => string {
  let unknown = 0;
  return (name) => (words.isName(name) ? name : `${REDACTED}${++unknown}`);
}

/** A JSON value with every string that is not a contract word redacted, and every member name it does not write. */
function redactJson(value: unknown, words: Vocabulary, depth = 0): unknown {
  if (typeof value === "string") return words.isValue(value) ? value : REDACTED;
  if (value === null || typeof value !== "object") return value;
  // decodeJsonBody refused anything deeper, so the recursion is bounded.
  if (depth > MAX_JSON_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, words, depth + 1));
  const out: Record<string, unknown> = Object.create(null);
  const mask = nameMasker(words);
  for (const [key, member] of Object.entries(value)) out[mask(key)] = redactJson(member, words, depth + 1);
  return out;
}

/** A body for the HAR: redacted JSON text, or only its media type and size. */
function harContent(
  message: HarMessage,
  words: Vocabulary,
): { mimeType: string; size: number; text?: string; comment?: string } {
  const type = message.headers.find(([name]) => name.toLowerCase() === "content-type")?.[1];
  const essence = type === undefined ? undefined : mediaTypeEssence(type);
  const mimeType = type === undefined ? "" : essence === undefined ? REDACTED : words.mediaType(essence);
  const base = { mimeType, size: message.size };
  if (message.size > 0 && !message.body)
    return { ...base, comment: "body not recorded: over the capture limit" };
  if (!message.body || message.body.length === 0) return base;
  const read = decodeJsonBody(message.body);
  if (!read.ok) return { ...base, comment: "body not recorded: not JSON" };
  return { ...base, text: JSON.stringify(redactJson(read.value, words)) };
}

/** The URL with every path segment that is neither a contract word nor an id redacted, every query value, and query names the contract does not write. */
function redactUrl(
  url: HarExchange["target"],
  words: Vocabulary,
): { url: string; queryString: { name: string; value: string }[] } {
  const path = url.pathname
    .split("/")
    .map((segment) => {
      const decoded = decodeURIComponentSafe(segment);
      return segment === "" || words.isSegment(decoded) || ID_SEGMENT.test(decoded) ? segment : REDACTED;
    })
    .join("/");
  const mask = nameMasker(words);
  const queryString = [...new URLSearchParams(url.query).keys()].map((name) => ({
    name: mask(name),
    value: REDACTED,
  }));
  const search =
    queryString.length > 0
      ? `?${queryString.map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(q.value)}`).join("&")}`
      : "";
  return { url: `${url.origin}${path}${search}`, queryString };
}

function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Bytes of entries waiting for the disk past which new exchanges are held back (see `ready`). */
export const RECORDING_BACKLOG_BYTES = 16 * 1024 * 1024;

/** Writes a HAR file entry by entry, so memory does not grow with the recording. */
export class HarRecorder {
  private first = true;
  private failed: Error | undefined;
  private draining: Promise<void> | undefined;

  private constructor(
    private readonly stream: WriteStream,
    private readonly words: Vocabulary,
    private readonly headers: HeaderRedactor,
    private readonly backlogBytes: number,
  ) {
    stream.on("error", (error) => (this.failed = error));
  }

  /**
   * Open FILE for writing (rejects when it cannot be) and write the HAR's head. `backlogBytes` is
   * how much may wait for the disk before `ready` holds new exchanges back.
   */
  static open(file: string, document: Json, backlogBytes = RECORDING_BACKLOG_BYTES): Promise<HarRecorder> {
    return new Promise((resolve, reject) => {
      const stream = createWriteStream(file);
      stream.once("error", reject);
      stream.once("open", () => {
        stream.off("error", reject);
        const words = new Vocabulary(document);
        const recorder = new HarRecorder(stream, words, new HeaderRedactor(document, words), backlogBytes);
        stream.write(
          '{"log":{"version":"1.2","creator":{"name":"idv-conformance proxy","version":"1"},"entries":[\n',
        );
        resolve(recorder);
      });
    });
  }

  /** Append one exchange, redacted. */
  add(exchange: HarExchange): void {
    const { url, queryString } = redactUrl(exchange.target, this.words);
    const requestContent = harContent(exchange.request, this.words);
    const entry = {
      startedDateTime: exchange.startedAt.toISOString(),
      time: exchange.durationMs,
      request: {
        method: safeMethod(exchange.method),
        url,
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: this.headers.redact(exchange.request.headers),
        queryString,
        headersSize: -1,
        bodySize: exchange.request.size,
        ...(exchange.request.size > 0
          ? { postData: { mimeType: requestContent.mimeType, text: requestContent.text ?? "" } }
          : {}),
      },
      response: {
        status: exchange.status,
        statusText: "",
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: this.headers.redact(exchange.response.headers),
        content: harContent(exchange.response, this.words),
        redirectURL: "",
        headersSize: -1,
        bodySize: exchange.response.size,
      },
      cache: {},
      timings: { send: 0, wait: exchange.durationMs, receive: 0 },
    };
    this.stream.write(`${this.first ? "" : ",\n"}${JSON.stringify(entry)}`);
    this.first = false;
  }

  /**
   * Settles at once while the entries waiting for the disk are under the backlog, otherwise when
   * they have been written (or the file failed): traffic faster than the disk waits rather than
   * piling up in memory.
   */
  ready(): Promise<void> {
    if (this.stream.writableLength < this.backlogBytes || this.failed || this.stream.destroyed)
      return Promise.resolve();
    this.draining ??= new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off("drain", done).off("error", done).off("close", done);
        this.draining = undefined;
        resolve();
      };
      this.stream.on("drain", done).on("error", done).on("close", done);
    });
    return this.draining;
  }

  /** Write the HAR's tail and close the file; rejects when any write failed. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.end("\n]}}\n", () => (this.failed ? reject(this.failed) : resolve()));
    });
  }
}
