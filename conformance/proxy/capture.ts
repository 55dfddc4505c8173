// What the proxy keeps of an exchange to check it: each body's bytes up to a limit (content codings
// undone), every copy counted against the proxy's budget of bytes (budget.ts), and the exchange as
// the checker reads it.
import { Transform } from "node:stream";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { RequestTarget } from "../../src/server/index.js";
import type { Exchange, HeaderMap } from "../traffic/exchange.js";
import type { BudgetHolder } from "./budget.js";

/**
 * A copy of a stream's bytes up to a limit, each chunk counted against the exchange's share of the
 * proxy's budget before it is kept; past the limit the copy is dropped (its bytes given back) and
 * only the size is kept.
 */
export class Capture {
  private chunks: Buffer[] = [];
  /** The bytes that crossed, kept or not. */
  size = 0;
  /** Not kept whole: over the limit, or the exchange ended before the budget could count it. */
  overflow = false;
  /** The bytes of `chunks`, as counted. */
  private counted = 0;
  /** Once the exchange is being checked, what still crosses is not kept. */
  private sealed = false;

  constructor(
    private readonly limit: number,
    private readonly holder: BudgetHolder,
  ) {}

  /** Keep a copy of `chunk`; a promise when the budget must be waited for (the stream waits with it). */
  add(chunk: Buffer): Promise<void> | undefined {
    this.size += chunk.length;
    if (this.overflow || this.sealed) return undefined;
    if (this.size > this.limit) {
      this.drop();
      return undefined;
    }
    if (this.holder.tryTake(chunk.length)) {
      this.keep(chunk);
      return undefined;
    }
    return this.holder.take(chunk.length).then((granted) => {
      if (!granted) this.drop();
      else if (this.overflow || this.sealed) this.holder.release(chunk.length);
      else this.keep(chunk);
    });
  }

  private keep(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.counted += chunk.length;
  }

  /** The copy is not kept whole: dropped, its bytes given back. */
  private drop(): void {
    this.overflow = true;
    this.forget();
  }

  /** Give the copy's bytes back: it is no longer held (a decoded copy stands for it). */
  forget(): void {
    this.chunks = [];
    this.holder.release(this.counted);
    this.counted = 0;
  }

  /** The bytes kept, joined (the joined copy counted while the pieces exist); undefined when not kept whole. */
  async bytes(): Promise<Buffer | undefined> {
    this.sealed = true;
    if (this.overflow) return undefined;
    if (this.chunks.length <= 1) return this.chunks[0] ?? Buffer.alloc(0);
    const size = this.counted;
    if (!(await this.holder.take(size))) {
      this.drop();
      return undefined;
    }
    const joined = Buffer.concat(this.chunks, size);
    this.chunks = [joined];
    this.holder.release(size);
    return joined;
  }
}

/** A pass-through that keeps a copy of what crosses in `capture`, pausing its stream while the budget is spent. */
export function captureTap(capture: Capture): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const waiting = capture.add(chunk);
      if (!waiting) callback(null, chunk);
      else waiting.then(() => callback(null, chunk), callback);
    },
  });
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

/**
 * A side's headers and its body, decoded as its Content-Encoding says. The decoded copy is counted
 * before it exists (room for the most it may be, the rest given back), then the coded bytes are.
 */
export async function capturedSide(
  headers: [string, string][],
  capture: Capture,
  limit: number,
  holder: BudgetHolder,
): Promise<CapturedSide> {
  const map = headerMap(headers);
  const raw = await capture.bytes();
  const encoding = map["content-encoding"];
  if (!raw || !encoding || encoding === "identity") return { headers, map, capture, body: raw };
  if (!(await holder.take(limit))) {
    capture.forget();
    return { headers, map, capture, body: undefined };
  }
  const body = decoded(raw, encoding, limit);
  holder.release(limit - (body?.length ?? 0));
  capture.forget();
  return { headers, map, capture, body };
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
