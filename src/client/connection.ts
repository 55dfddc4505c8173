// A network failure as the caller gets it: the host and the cause, never the request. fetch rejects
// with a bare `TypeError: fetch failed` whose cause (a system or undici error) says what happened.
import { CodingsError } from "./content-codings.js";

/** What common causes mean, by their code (Node's system errors, undici's, TLS's). */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed by the other side",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "no response headers in time",
  UND_ERR_BODY_TIMEOUT: "the response body stalled",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS certificate not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS certificate not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS certificate names another host",
  EPROTO: "TLS handshake failed",
};

// A code is an identifier: anything else a cause carries is not quoted.
const CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/** Links of a cause chain looked at: causes are the fetch's, not the service's, and few. */
const CHAIN_LINKS = 4;

/** An error and its causes, the objects among the first few links of its chain. */
export function* causeChain(error: unknown): Generator<object> {
  let at = error;
  for (let depth = 0; depth < CHAIN_LINKS && at !== null && typeof at === "object"; depth++) {
    yield at;
    at = (at as { cause?: unknown }).cause;
  }
}

/** The first code along a cause chain. */
function codeOf(error: unknown): string | undefined {
  for (const at of causeChain(error)) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && CODE.test(code)) return code;
  }
  return undefined;
}

/** Whether undici's HTTP parser failed along the cause chain (Node 24 and later leave its code unset). */
function parserFailed(error: unknown): boolean {
  for (const at of causeChain(error)) if ((at as Error).name === "HTTPParserError") return true;
  return false;
}

/** A cause in words: its code, described where known ("connection refused (ECONNREFUSED)"). */
function describe(code: string | undefined, parser: boolean): string {
  if (code === undefined) return parser ? "the answer is not valid HTTP" : "network error";
  if (code.startsWith("HPE_")) return `the answer is not valid HTTP (${code})`;
  const known = Object.hasOwn(CAUSES, code) ? CAUSES[code] : undefined;
  return known ? `${known} (${code})` : code;
}

/** Drops the bytes undici's HTTP parser failed on (`data`: the service's, maybe personal data). */
export function scrubbed<E>(error: E): E {
  for (const at of causeChain(error))
    if ((at as Error).name === "HTTPParserError") Reflect.deleteProperty(at, "data");
  return error;
}

/**
 * Raised when the service could not be reached, or the connection failed before the whole answer
 * came: names the call, the host and the cause, never a credential, a path value or a query.
 */
export class IdvConnectionError extends Error {
  override name = "IdvConnectionError";
  /** The host (and port) the client was talking to. */
  readonly host: string;
  /** The cause's code, such as ECONNREFUSED or UND_ERR_SOCKET, when it has one. */
  readonly code: string | undefined;
  constructor(where: string, host: string, code: string | undefined, options?: { cause?: unknown }) {
    super(
      `${where}: the connection to ${host} failed: ${describe(code, parserFailed(options?.cause))}`,
      options,
    );
    this.host = host;
    this.code = code;
  }
}

/**
 * The error a network failure of `url` is raised as: an IdvConnectionError for fetch's TypeError,
 * anything else unchanged (a timeout, the caller's abort, an answer refused for its codings).
 */
export function asConnectionError(error: unknown, url: string, where: string): unknown {
  if (!(error instanceof TypeError) || error.cause instanceof CodingsError) return error;
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return error;
  }
  return new IdvConnectionError(where, host, codeOf(error.cause ?? error), { cause: scrubbed(error) });
}
