// What the proxy keeps of an exchange to check it: each body's bytes up to a limit (content codings
// undone), and the exchange as the checker reads it.
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { RequestTarget } from "../../src/server/index.js";
import type { Exchange, HeaderMap } from "../traffic/exchange.js";

/** A copy of a stream's bytes up to a limit; past it the copy is dropped and only the size is kept. */
export class Capture {
  private chunks: Buffer[] = [];
  size = 0;
  overflow = false;

  constructor(private readonly limit: number) {}

  readonly add = (chunk: Buffer): void => {
    this.size += chunk.length;
    if (this.overflow) return;
    if (this.size > this.limit) {
      this.overflow = true;
      this.chunks = [];
    } else this.chunks.push(chunk);
  };

  bytes(): Buffer | undefined {
    return this.overflow ? undefined : Buffer.concat(this.chunks, this.size);
  }
}

/** Header pairs as the checker reads them: lower-cased names, repeats joined, no prototype. */
function headerMap(pairs: [string, string][]): HeaderMap {
  const out: HeaderMap = Object.create(null);
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const before = out[key];
    out[key] = before === undefined ? value : `${before}, ${value}`;
  }
  return out;
}

/** The body as its media type sees it: content codings undone (within the same byte limit). */
function decoded(bytes: Buffer | undefined, encoding: string | undefined, limit: number): Buffer | undefined {
  if (!bytes || !encoding || encoding === "identity") return bytes;
  const options = { maxOutputLength: limit };
  try {
    if (encoding === "gzip" || encoding === "x-gzip") return gunzipSync(bytes, options);
    if (encoding === "deflate") return inflateSync(bytes, options);
    if (encoding === "br") return brotliDecompressSync(bytes, options);
  } catch {
    return undefined;
  }
  return undefined;
}

/** The query of a target as the checker reads it: values by name, no prototype. */
function queryOf(query: string): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(query)) (out[name] ??= []).push(value);
  return out;
}

/** One side of a completed exchange as the proxy kept it. */
export interface CapturedSide {
  headers: [string, string][];
  /** The headers as the checker reads them. */
  map: HeaderMap;
  capture: Capture;
  /** The kept bytes with content codings undone; undefined when over the limit or not decodable. */
  body: Buffer | undefined;
}

/** Both sides of a completed exchange, kept. */
export interface Captured {
  index: number;
  method: string;
  target: RequestTarget;
  status: number;
  request: CapturedSide;
  response: CapturedSide;
}

/** A side's headers and its body, decoded as its Content-Encoding says. */
export function capturedSide(headers: [string, string][], capture: Capture, limit: number): CapturedSide {
  const map = headerMap(headers);
  return { headers, map, capture, body: decoded(capture.bytes(), map["content-encoding"], limit) };
}

/** The exchange as the checker reads it. */
export function toExchange({ index, method, target, status, request, response }: Captured): Exchange {
  return {
    index,
    request: {
      method,
      path: target.pathname,
      query: queryOf(target.query),
      headers: request.map,
      ...(request.capture.size > 0 && request.body
        ? { body: { kind: "bytes" as const, bytes: request.body } }
        : {}),
    },
    response: {
      status,
      headers: response.map,
      ...(response.body && response.body.length > 0
        ? { body: { kind: "bytes" as const, bytes: response.body } }
        : {}),
      ...(response.capture.size > 0 && !response.body ? { bodyNotRecorded: true } : {}),
    },
  };
}
