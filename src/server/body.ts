// Request bodies read with a limit in bytes, and JSON bodies decoded strictly.
import type { IncomingMessage } from "node:http";
import { exceedsJsonLimits } from "../json-scan.js";

/** A body read whole, or the news that it passed the limit (the rest was drained, not kept). */
export type BodyRead = { ok: true; bytes: Buffer } | { ok: false; tooLarge: true; size: number };

/**
 * Read a request body, keeping at most `maxBytes` bytes in memory; a larger body is drained to
 * its end so the connection stays usable, and reported as too large. Rejects when the request
 * errors or is aborted (the caller's handler wrapper answers that).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.once("end", () =>
      resolve(
        size > maxBytes
          ? { ok: false, tooLarge: true, size }
          : { ok: true, bytes: Buffer.concat(chunks, size) },
      ),
    );
    req.once("error", reject);
    req.once("aborted", () => reject(new Error("request aborted")));
  });
}

/** Why a JSON body was refused: not UTF-8, not JSON, nested deeper than allowed, or too many values. */
export type JsonProblem = "utf8" | "json" | "depth" | "values";

/** A JSON body's value, or what is wrong with it. */
export type JsonRead = { ok: true; value: unknown } | { ok: false; problem: JsonProblem };

/** The default nesting limit: far deeper than any document the contract describes. */
export const MAX_JSON_DEPTH = 256;

/**
 * The most values (containers, members, elements) a body may hold: the contract's requests hold a
 * few hundred; a million `{}` already cost some 50 MB of heap to parse.
 */
export const MAX_JSON_VALUES = 1_000_000;

/**
 * Decode a JSON body: its nesting and value count measured before anything is built (JSON.parse's
 * heap grows with them, and validators recurse: a 100k-deep array would overflow their stack), then
 * fatal UTF-8 (an invalid byte is an error, never a U+FFFD), then JSON.parse. A leading BOM is ignored.
 */
export function decodeJsonBody(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): JsonRead {
  const over = exceedsJsonLimits(bytes, { maxDepth, maxValues: MAX_JSON_VALUES });
  if (over) return { ok: false, problem: over };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: "utf8" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "json" };
  }
  return { ok: true, value };
}

/** The nesting depth of a JSON value (a scalar is 0), counted iteratively and stopping past `limit`. */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== "object") continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push([child, inner]);
    }
  }
  return deepest;
}
