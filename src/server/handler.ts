// A handler wrapper and server factory under which no request can end the process: a thrown error
// or rejection becomes an answer in the service's error shape, and stream and parser errors on the
// request, the response or the socket are answered (400/408/431) or end that one connection.
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { Duplex } from "node:stream";
import { parseRequestTarget, type RequestTarget } from "./request-target.js";

/**
 * The service's error body for a status and a message. `pathname` is the request's path when one
 * could be read (a server whose shape depends on the product picks it from there), else undefined.
 */
export type ErrorBody = (status: number, message: string, pathname: string | undefined) => unknown;

/** Throw this from a handler to answer `status` with `message` in the service's shape. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** A request handler that gets the parsed target; it may throw, or return a promise that rejects. */
export type SafeHandler = (req: IncomingMessage, res: ServerResponse, target: RequestTarget) => unknown;

export interface SafeServerOptions {
  errorBody: ErrorBody;
  /**
   * How long a whole request, headers and body, may take to arrive (60 s by default; Node's own is
   * 300 s): a client trickling a body holds its connection and buffered bytes for that long at most,
   * then gets a 408. 0: no deadline for the whole request.
   */
  requestTimeoutMs?: number;
  /** Told the kind of each unexpected failure (the error's name: never its message, which may quote input). */
  onError?: (kind: string, pathname: string | undefined) => void;
}

const INTERNAL = "The server failed to answer this request.";

/**
 * Request headers a server reads. Node drops those past its `maxHeadersCount` without a word (a Host
 * among them, then answered with a bare 400): the servers keep one more than this and refuse more.
 */
export const MAX_REQUEST_HEADERS = 1000;

/**
 * What the servers refuse of a request's head before any handler runs, or undefined: more than
 * 1,000 headers (431), an HTTP/1.1 request without exactly one Host (400, RFC 9112 §3.2), an
 * expectation other than 100-continue (417, RFC 9110 §10.1.1). Node answers the last two bare.
 */
export function headRefusal(req: IncomingMessage): { status: number; message: string } | undefined {
  const raw = req.rawHeaders;
  if (raw.length / 2 > MAX_REQUEST_HEADERS)
    return { status: 431, message: "The request has more than 1,000 headers." };
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === "host") hosts++;
  if (hosts > 1 || (hosts === 0 && req.httpVersion === "1.1"))
    return { status: 400, message: "The request must have one Host header." };
  const expect = req.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== "100-continue")
    return { status: 417, message: "The only expectation the server meets is 100-continue." };
  return undefined;
}

/**
 * Connections on which an answer said `connection: close`: a request pipelined behind it is not
 * handled (its answer could never be sent, and a proxy would forward it, a sandbox act on it).
 */
const closing = new WeakSet<object>();

/** Send a JSON error body unless the answer has begun; then the connection is ended instead. */
function answerError(
  res: ServerResponse,
  status: number,
  message: string,
  pathname: string | undefined,
  options: SafeServerOptions,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  let body: Buffer;
  try {
    body = Buffer.from(JSON.stringify(options.errorBody(status, message, pathname)));
  } catch {
    // The shape builder itself failed: a bare body still says what happened.
    body = Buffer.from(JSON.stringify({ message }));
  }
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(body.length),
  });
  if (headers.connection === "close") closing.add(connectionOf(res));
  res.end(body);
}

/** The connection a response goes out on (the request's socket: a queued response has none yet). */
const connectionOf = (res: ServerResponse): object => res.req.socket;

/**
 * Wrap a handler so that nothing it does escapes: a target that is not a path gets 400, an
 * `HttpError` gets its status, any other throw or rejection 500, all in the caller's error shape.
 */
export function safeHandler(
  handle: SafeHandler,
  options: SafeServerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (closing.has(req.socket)) {
      req.resume();
      return;
    }
    // Without listeners, an 'error' on either stream is thrown from the event loop.
    req.on("error", () => res.destroy());
    res.on("error", () => res.destroy());
    const target = parseRequestTarget(req.url);
    if (!target) {
      answerError(res, 400, "The request target is not a path.", undefined, options, { connection: "close" });
      return;
    }
    // Refused before the handler, with the connection closed: its body, if any, is never read.
    const refused = headRefusal(req);
    if (refused) {
      answerError(res, refused.status, refused.message, target.pathname, options, { connection: "close" });
      return;
    }
    const fail = (error: unknown): void => {
      if (error instanceof HttpError) {
        answerError(res, error.status, error.message, target.pathname, options, error.headers);
        return;
      }
      options.onError?.((error as Error)?.name ?? typeof error, target.pathname);
      answerError(res, 500, INTERNAL, target.pathname, options);
    };
    try {
      const pending = handle(req, res, target);
      if (pending instanceof Promise) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}

/** The status Node's parser error deserves: 431 for headers too large, 408 for a timeout, else 400. */
function parserStatus(code: string | undefined): number {
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  return 400;
}

/** Sockets whose refusal waits for the answer in flight on them. */
const waitingRefusal = new WeakSet<Duplex>();

/**
 * Answer a malformed request (bad request line, header, chunking…) in the service's shape and close
 * the connection; a reset or half-answered socket is just destroyed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, options: SafeServerOptions): void {
  // Node keeps the response in flight on the socket; raw bytes after its headers would corrupt it.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean; req?: IncomingMessage } })
    ._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  // Each chunk the client sends after the refused bytes is refused again: one refusal waits, not one a chunk.
  if (waitingRefusal.has(socket)) return;
  // The bytes refused came after a whole request still being answered (pipelined, or after a
  // \`Connection: close\`): its answer goes first (and those of whole requests queued behind it), then
  // this one, then the connection closes. Written now, the refusal would be read as that request's
  // answer, or cut into it, and the answer lost.
  if (inFlight?.req?.complete) {
    waitingRefusal.add(socket);
    const answered = inFlight as unknown as ServerResponse;
    answered.once("finish", () => {
      waitingRefusal.delete(socket);
      // Not writable: the answer closed the connection (\`Connection: close\`), and nothing follows it.
      if (socket.writable) answerClientError(error, socket, options);
    });
    answered.once("close", () => {
      if (!answered.writableFinished) socket.destroy();
    });
    return;
  }
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status = parserStatus(error.code);
  const message =
    status === 431
      ? "The request's headers are too large."
      : status === 408
        ? "The request took too long to arrive."
        : "The request is not valid HTTP.";
  let body: string;
  try {
    // The refused request's line when its head failed; else the request whose headers arrived (then
    // timed out in its body): either way the path, so its shape, is known.
    const pathname =
      refusedPath(error) ?? (inFlight?.req ? parseRequestTarget(inFlight.req.url)?.pathname : undefined);
    body = JSON.stringify(options.errorBody(status, message, pathname));
  } catch {
    body = JSON.stringify({ message });
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The path of the request whose head the parser refused (both Content-Length and Transfer-Encoding,
 * say), from the request line in the bytes it failed on, so its answer has the path's shape.
 */
function refusedPath(error: NodeJS.ErrnoException): string | undefined {
  const { rawPacket, bytesParsed } = error as { rawPacket?: unknown; bytesParsed?: unknown };
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const end = typeof bytesParsed === "number" ? Math.min(bytesParsed + 1, rawPacket.length) : undefined;
  const text = rawPacket.toString("latin1", 0, end);
  let target: string | undefined;
  // The last request line before the failure: an earlier one in the same bytes is another request's.
  for (const line of text.matchAll(/(?:^|\r\n)[A-Z]+ (\S+) HTTP\/1\.[01]\r\n/g)) target = line[1];
  return target === undefined ? undefined : parseRequestTarget(target)?.pathname;
}

/** The idle time a kept-alive connection is announced for (`Keep-Alive: timeout=5`, Node's default). */
export const KEEP_ALIVE_ANNOUNCED_MS = 5_000;
/**
 * How much longer it is really kept: a client reuses an idle connection until about the announced
 * end, and on a busy machine its timer fires late; a server closing at exactly that end resets
 * the request the client has just sent (Node 24's keepAliveTimeoutBuffer is the same margin).
 */
export const KEEP_ALIVE_GRACE_MS = 2_000;

/** An HTTP server whose handler is wrapped by `safeHandler` and whose parser errors are answered. */
export function createSafeServer(handle: SafeHandler, options: SafeServerOptions): Server {
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const safe = safeHandler(handle, options);
  const wrapped: typeof safe = (req, res) => {
    // What the Keep-Alive header announces (Node writes it from this field); the socket is kept
    // for server.keepAliveTimeout, the grace longer.
    (res as unknown as { _keepAliveTimeout: number })._keepAliveTimeout = KEEP_ALIVE_ANNOUNCED_MS;
    return safe(req, res);
  };
  const server = createServer(
    requestTimeout > 0
      ? {
          requestTimeout,
          headersTimeout: Math.min(requestTimeout, 30_000),
          // Node checks the timeouts on this interval (30 s by default): a quarter keeps the overshoot small.
          connectionsCheckingInterval: Math.max(50, Math.min(30_000, requestTimeout / 4)),
        }
      : // No deadline for the whole request; Node's own for its headers (60 s) still applies.
        { requestTimeout: 0 },
    wrapped,
  );
  // Node's own answers are bare: a missing Host gets 400 and an unmet Expect a 417 that keeps the
  // connection. Both reach the handler instead, refused there in the caller's shape (headRefusal).
  server.keepAliveTimeout = KEEP_ALIVE_ANNOUNCED_MS + KEEP_ALIVE_GRACE_MS;
  server.maxHeadersCount = MAX_REQUEST_HEADERS + 1;
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on("checkExpectation", wrapped);
  // A client that half-closes after its request (`printf … | nc`) still gets its answer; Node's
  // default ends such a socket at once, dropping an answer still being made.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    try {
      answerClientError(error, socket, options);
    } catch {
      socket.destroy();
    }
  });
  return server;
}
