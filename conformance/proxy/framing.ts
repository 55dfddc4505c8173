// What the proxy passes on of a message's head, and how it frames a body. Framing is the proxy's own
// on each side: the body the service reads must end exactly where the client's ended, or the rest of
// it would be read, on a kept-alive connection, as another request (request smuggling).
import { validateHeaderName, validateHeaderValue } from "node:http";

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1): never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Headers that say where a body ends. A `Connection` header naming one does not remove it: without
 * it, Node's client sends a GET, HEAD, DELETE or OPTIONS body with nothing to end it.
 */
const FRAMING = new Set(["content-length", "transfer-encoding"]);

/**
 * Whether a message's framing can be passed on: no Transfer-Encoding, or `chunked` alone. Node undoes
 * chunked and the proxy frames the body again; any other coding (`gzip, chunked`, `gzip` read until
 * close) would reach the other side either unframed or with a coding nothing names any more.
 */
export function plainFraming(raw: string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    if (
      raw[i]?.toLowerCase() === "transfer-encoding" &&
      (raw[i + 1] ?? "").trim().toLowerCase() !== "chunked"
    )
      return false;
  }
  return true;
}

/**
 * Raw header pairs without hop-by-hop headers, those the Connection header names (never a framing
 * header) and those in `drop` (lower-case names).
 */
export function forwardable(raw: string[], drop: ReadonlySet<string>): [string, string][] {
  const named = new Set(drop);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === "connection") {
      for (const token of (raw[i + 1] ?? "").split(",")) {
        const name = token.trim().toLowerCase();
        if (!FRAMING.has(name)) named.add(name);
      }
    }
  }
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!HOP_BY_HOP.has(name.toLowerCase()) && !named.has(name.toLowerCase()))
      out.push([name, raw[i + 1] as string]);
  }
  return out;
}

/**
 * The request's headers as the service gets them: the forwardable ones (not `Host`), and the body's
 * framing as Node's parser read it, stated explicitly (a length as a plain number, or `chunked`), so
 * Node's client frames the body the same way whatever the method. Without either there was no body.
 */
export function upstreamRequestHeaders(
  raw: string[],
  parsed: { "content-length"?: string; "transfer-encoding"?: string },
): { headers: [string, string][]; outgoing: string[] } {
  const headers = forwardable(raw, new Set(["host"]));
  const outgoing: string[] = [];
  // plainFraming refused any coding but `chunked`; Node's parser refused a length beside it, or two.
  const framing =
    parsed["transfer-encoding"] !== undefined
      ? (["Transfer-Encoding", "chunked"] as const)
      : parsed["content-length"] !== undefined
        ? (["Content-Length", String(Number(parsed["content-length"]))] as const)
        : undefined;
  let framed = false;
  for (const [name, value] of headers) {
    if (FRAMING.has(name.toLowerCase())) {
      if (framing && !framed) outgoing.push(framing[0], framing[1]);
      framed = true;
    } else outgoing.push(name, value);
  }
  if (framing && !framed) outgoing.push(framing[0], framing[1]);
  return { headers, outgoing };
}

/** Characters Node sends in a reason phrase (the rule it applies to header values). */
const REASON = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Whether Node will send this status line and these headers on: a code of 100 to 999, a reason phrase
 * and header names and values of characters HTTP allows. An answer that fails is never written
 * (writeHead would throw, and the phrase would stay on the response for the next try).
 */
export function sendable(
  status: number | undefined,
  reason: string | undefined,
  headers: [string, string][],
): boolean {
  if (status === undefined || !Number.isInteger(status) || status < 100 || status > 999) return false;
  if (reason !== undefined && !REASON.test(reason)) return false;
  try {
    for (const [name, value] of headers) {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    }
  } catch {
    return false;
  }
  return true;
}
