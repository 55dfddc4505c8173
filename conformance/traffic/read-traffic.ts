import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import { type Exchange, isEmptyBody } from "./exchange.js";
import { entryLimit, harEntries } from "./har-stream.js";
import { assertParseable, JsonTooCostly } from "./json-bounds.js";
import {
  describeJsonError,
  EntryError,
  entryWhere,
  InputError,
  type Raw,
  sourceName,
} from "./input-error.js";
import {
  emptyMap,
  harFormParts,
  normalizeBody,
  normalizeHeaders,
  normalizeQuery,
  requestContentType,
  scalarNumber,
  splitUrl,
} from "./normalize.js";
import { readWithheld, WITHHELD_MEMBER } from "../findings/withheld.js";
import { formatByHead, formatByName, HEAD_BYTES, type TrafficFormat } from "./detect-format.js";
import {
  GATEWAY_READERS,
  type GatewayFormat,
  newlyUnrecorded,
  type UnrecordedNotice,
  type UnrecordedPart,
} from "./gateway-logs.js";

export type { TrafficFormat } from "./detect-format.js";

/**
 * Guess a file's format from its name, else from its first bytes (a HAR is one object with `log`; a
 * gateway log is known by its first line's members); standard input is not read ahead: NDJSON.
 */
export async function detectFormat(file: string): Promise<TrafficFormat> {
  if (file === "-") return "ndjson";
  const named = formatByName(file);
  if (named) return named;
  const source = fileBytes(file);
  try {
    return formatByHead((await peek(source, HEAD_BYTES)).head, file);
  } finally {
    await source.return(undefined);
  }
}

/**
 * The first `size` bytes of a source (fewer when it ends sooner), and the whole source again. Peeking
 * reads the stream itself, never the file a second time: a pipe (`<(zcat …)`, a FIFO) cannot be reread.
 */
async function peek(
  source: AsyncGenerator<Buffer>,
  size: number,
  lineEnough = false,
): Promise<{ head: Buffer; all: AsyncGenerator<Buffer> }> {
  const seen: Buffer[] = [];
  let bytes = 0;
  while (bytes < size) {
    const next = await source.next();
    if (next.done) break;
    seen.push(next.value);
    bytes += next.value.length;
    // A pipe is read as it comes: its first line decides, so the first verdicts need not wait for more.
    if (lineEnough && hasFirstLine(Buffer.concat(seen))) break;
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* seen;
    yield* source;
  }
  return { head: Buffer.concat(seen).subarray(0, size), all: all() };
}

/** Whether bytes hold a whole non-blank line. */
function hasFirstLine(bytes: Buffer): boolean {
  for (let start = 0, end = bytes.indexOf(10); end >= 0; start = end + 1, end = bytes.indexOf(10, start))
    if (!isBlank(bytes.subarray(start, end))) return true;
  return false;
}

/**
 * Read the exchanges of a traffic file, one at a time. Throws InputError naming the file and entry.
 * `onNotice` hears, once a file for each part, what a gateway log does not record (then not checked).
 */
export async function* readExchanges(
  file: string,
  format?: TrafficFormat,
  onNotice?: (notice: UnrecordedNotice) => void,
): AsyncGenerator<Exchange> {
  let source = fileBytes(file);
  let kind = format ?? (file === "-" ? undefined : formatByName(file));
  if (!kind) {
    const peeked = await peek(source, HEAD_BYTES, file === "-");
    kind = formatByHead(peeked.head, file);
    source = peeked.all;
  }
  if (kind === "har") yield* readHar(file, source);
  else if (kind === "ndjson") yield* readNdjson(file, source, exchangeFromNdjson);
  else yield* readGateway(file, source, kind, onNotice);
}

/** A gateway log's exchanges, with each part it leaves unrecorded said once. */
async function* readGateway(
  file: string,
  chunks: AsyncIterable<Buffer>,
  format: GatewayFormat,
  onNotice?: (notice: UnrecordedNotice) => void,
): AsyncGenerator<Exchange> {
  const said = new Set<UnrecordedPart>();
  for await (const exchange of readNdjson(file, chunks, GATEWAY_READERS[format])) {
    if (onNotice) for (const part of newlyUnrecorded(exchange, said)) onNotice({ file, format, part });
    yield exchange;
  }
}

/** An NDJSON exchange: `{request: {method, url | path, query?, headers, body}, response: {status, headers, body}}`. */
export function exchangeFromNdjson(raw: Raw, index: number, line: number): Exchange {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new EntryError("is not a JSON object");
  const req = raw.request;
  if (!req || typeof req !== "object") throw new EntryError("has no request object");
  if (typeof req.method !== "string" || req.method === "") throw new EntryError("request.method is missing");
  let target: { path: string; query: Record<string, string[]> };
  if (typeof req.url === "string") target = splitUrl(req.url);
  else if (typeof req.path === "string") target = splitUrl(req.path);
  else throw new EntryError("request has neither url nor path");
  if (req.query !== undefined) Object.assign(target.query, normalizeQuery(req.query));
  const exchange: Exchange = {
    index,
    line,
    request: {
      method: req.method,
      path: target.path,
      query: target.query,
      headers: normalizeHeaders(req.headers, "request.headers"),
      body: normalizeBody(req.body, req.bodyEncoding ?? req.encoding, "request.body"),
    },
  };
  const res = raw.response;
  if (res !== undefined && res !== null) {
    if (typeof res !== "object") throw new EntryError("response is not an object");
    const status = scalarNumber(res.status);
    if (!Number.isInteger(status) || status < 0 || status > 999)
      throw new EntryError("response.status is not an HTTP status");
    exchange.response = {
      status,
      headers: normalizeHeaders(res.headers, "response.headers"),
      body: normalizeBody(res.body, res.bodyEncoding ?? res.encoding, "response.body"),
    };
  }
  return exchange;
}

/** An entry that is not read: a line or HAR entry over the limit, known by its place and size alone. */
function tooLargeExchange(index: number, bytes: number, limit: number, line?: number): Exchange {
  const exchange: Exchange = {
    index,
    request: { method: "", path: "", query: emptyMap(), headers: emptyMap() },
    unjudged: { reason: "too-large", bytes, limit },
  };
  if (line !== undefined) exchange.line = line;
  return exchange;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A stream's bytes without a leading UTF-8 byte order mark (editors on Windows write one). */
const withoutBom = (bytes: Buffer): Buffer => (bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes);

/** A line of a source: its bytes, or only its size when it is longer than the limit. */
type Line = { bytes: Buffer; tooLarge?: undefined } | { bytes?: undefined; tooLarge: number };

/**
 * The lines of a source as bytes, read chunk by chunk as the consumer asks for them (readline's async
 * iterator queues every line it has read whether or not they were consumed: memory then grows with
 * the file). Lines are split on the newline byte, which never occurs inside a UTF-8 sequence. A line
 * longer than `limit` is not kept: once past the limit its bytes are dropped as they pass.
 */
async function* readLines(chunks: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Line> {
  let rest: Buffer[] = [];
  let restBytes = 0;
  let oversize = false;
  let first = true;
  for await (let chunk of chunks) {
    if (first) {
      chunk = withoutBom(chunk);
      first = false;
    }
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      const size = restBytes + newline - start;
      if (oversize || size > limit) yield { tooLarge: size };
      else {
        const piece = chunk.subarray(start, newline);
        yield { bytes: rest.length === 0 ? piece : Buffer.concat([...rest, piece]) };
      }
      rest = [];
      restBytes = 0;
      oversize = false;
      start = newline + 1;
    }
    if (start < chunk.length) {
      restBytes += chunk.length - start;
      if (restBytes > limit) {
        oversize = true;
        rest = [];
      } else rest.push(chunk.subarray(start));
    }
  }
  if (restBytes > 0)
    yield oversize || restBytes > limit ? { tooLarge: restBytes } : { bytes: Buffer.concat(rest) };
}

/** Whether a line holds only JSON whitespace. */
function isBlank(line: Buffer): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

/** The exchanges of a file of JSON lines, each made by `toExchange`. */
async function* readNdjson(
  file: string,
  chunks: AsyncIterable<Buffer>,
  toExchange: (raw: Raw, index: number, line: number) => Exchange,
): AsyncGenerator<Exchange> {
  let lineNumber = 0;
  let index = 0;
  const limit = entryLimit();
  for await (const { bytes: line, tooLarge } of readLines(chunks, limit)) {
    lineNumber++;
    if (tooLarge !== undefined) {
      yield tooLargeExchange(index++, tooLarge, limit, lineNumber);
      continue;
    }
    if (isBlank(line)) continue;
    // JSON text is UTF-8: a line that is not cannot be read faithfully (it would be U+FFFD in disguise).
    if (!isUtf8(line))
      throw new InputError(entryWhere(file, { index, line: lineNumber }), "is not valid UTF-8");
    let raw: Raw;
    try {
      assertParseable(line);
      raw = JSON.parse(line.toString("utf8"));
    } catch (error) {
      throw new InputError(entryWhere(file, { index, line: lineNumber }), jsonProblem(error));
    }
    try {
      yield toExchange(raw, index++, lineNumber);
    } catch (error) {
      if (error instanceof EntryError)
        throw new InputError(entryWhere(file, { index, line: lineNumber }), error.message);
      throw error;
    }
  }
}

/**
 * Whether a HAR content without `text` stands for a body the recorder did not keep: a size above 0, a
 * size of -1 (unknown: Firefox's export without bodies), or a `comment` saying so ("Response bodies are
 * not included."), unless the size says the body was empty.
 */
function notRecorded(content: Raw): boolean {
  const size = scalarNumber(content.size);
  if (size === 0) return false;
  return size > 0 || size < 0 || (typeof content.comment === "string" && content.comment !== "");
}

/**
 * Whether a HAR request without a recorded body was sent with one: Chromium gives no text for a body
 * holding a Blob or File (so Playwright and Chrome DevTools write no postData for an upload), and
 * Firefox may say "Request bodies are not included.". The size is then in `bodySize`, in
 * Content-Length, or unknown under chunked framing.
 */
function bodySent(req: Raw, headers: Record<string, string>): boolean {
  if (typeof req.postData?.comment === "string" && req.postData.comment !== "") return true;
  if (scalarNumber(req.bodySize) > 0 || scalarNumber(headers["content-length"]) > 0) return true;
  return /\bchunked\b/i.test(headers["transfer-encoding"] ?? "");
}

/** A HAR 1.2 entry as an exchange. */
export function exchangeFromHar(entry: Raw, index: number): Exchange {
  if (entry === null || typeof entry !== "object") throw new EntryError("is not an object");
  const req = entry.request;
  if (!req || typeof req !== "object") throw new EntryError("has no request");
  if (typeof req.method !== "string" || req.method === "") throw new EntryError("request.method is missing");
  if (typeof req.url !== "string") throw new EntryError("request.url is missing");
  const target = splitUrl(req.url);
  if (Array.isArray(req.queryString)) Object.assign(target.query, normalizeQuery(req.queryString));
  const headers = normalizeHeaders(req.headers, "request.headers");
  const post = req.postData;
  // Firefox adds a multipart body's first part headers to the request's (its own Content-Type too).
  const contentType = requestContentType(req.headers, post?.text);
  if (contentType !== undefined) headers["content-type"] = contentType;
  let body: Exchange["request"]["body"];
  if (post && typeof post === "object") {
    if (Array.isArray(post.params) && post.params.length > 0 && typeof post.text !== "string") {
      body = { kind: "form", parts: harFormParts(post.params) };
    } else {
      body = normalizeBody(post.text, post.encoding, "request.postData.text");
    }
    // Some recorders keep the media type only in postData.
    if (!headers["content-type"] && typeof post.mimeType === "string" && post.mimeType !== "") {
      headers["content-type"] = post.mimeType;
    }
  }
  const exchange: Exchange = {
    index,
    request: { method: req.method, path: target.path, query: target.query, headers, body },
  };
  const withheld = readWithheld(Object.hasOwn(entry, WITHHELD_MEMBER) ? entry[WITHHELD_MEMBER] : undefined);
  if (withheld) exchange.withheld = withheld;
  if (isEmptyBody(body) && bodySent(req, headers)) exchange.request.bodyNotRecorded = true;
  const res = entry.response;
  if (res && typeof res === "object") {
    const status = scalarNumber(res.status);
    // A request that got no answer: Playwright writes -1 (harTracer.ts: createHarEntry's default, kept by
    // _onRequestFailed), Chrome DevTools 0 (Log.ts: the request's statusCode), Firefox 0 (har-builder.js:
    // "Arbitrary value if it's aborted").
    if (status === 0 || status === -1) {
      exchange.unjudged = { reason: "no-answer", status };
      return exchange;
    }
    if (!Number.isInteger(status) || status < 0 || status > 999)
      throw new EntryError("response.status is not an HTTP status");
    const content = res.content && typeof res.content === "object" ? res.content : {};
    const responseBody = normalizeBody(content.text, content.encoding, "response.content.text");
    exchange.response = {
      status,
      headers: normalizeHeaders(res.headers, "response.headers"),
      body: responseBody,
      bodyNotRecorded: responseBody === undefined && notRecorded(content),
    };
  }
  return exchange;
}

/**
 * A file's bytes (standard input's for `-`); a read failure is an InputError naming the file. The
 * stream is closed however the reading ends.
 */
async function* fileBytes(file: string): AsyncGenerator<Buffer> {
  const stream = file === "-" ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
  const chunks: AsyncIterator<Buffer> = stream[Symbol.asyncIterator]();
  try {
    while (true) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch {
        throw new InputError(sourceName(file), "cannot be read");
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (stream !== process.stdin) stream.destroy();
  }
}

/** Why a recorded JSON text was not parsed, in the suite's words (never the text's). */
const jsonProblem = (error: unknown): string =>
  error instanceof JsonTooCostly ? error.message : describeJsonError(error);

/** The exchanges of a HAR file, read as a stream: one entry in memory at a time. */
async function* readHar(file: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<Exchange> {
  const limit = entryLimit();
  for await (const { index, bytes, tooLarge } of harEntries(chunks, sourceName(file), limit)) {
    if (tooLarge !== undefined) {
      yield tooLargeExchange(index, tooLarge, limit);
      continue;
    }
    const where = entryWhere(file, { index });
    if (!isUtf8(bytes)) throw new InputError(where, "is not valid UTF-8; a HAR file is UTF-8 JSON");
    let entry: Raw;
    try {
      assertParseable(bytes);
      entry = JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      throw new InputError(where, jsonProblem(error));
    }
    let exchange: Exchange;
    try {
      exchange = exchangeFromHar(entry, index);
    } catch (error) {
      if (error instanceof EntryError) throw new InputError(where, error.message);
      throw error;
    }
    yield exchange;
  }
}
