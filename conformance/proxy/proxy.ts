// The validating proxy: forwards each request to the service unchanged and streams the answer back,
// keeping a copy of each body up to a byte limit, then checks the exchange against the contract.
// It never follows a redirect (a 3xx goes back to the client as sent) and adds no buffering.
import {
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { type Duplex, pipeline } from "node:stream";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { createSafeServer, listen, type Listening, type RequestTarget } from "../../src/server/index.js";
import type { SafeHandler } from "../../src/server/handler.js";
import { shapeOfPath } from "../../src/server/operations.js";
import type { Exchange, HeaderMap } from "../traffic/exchange.js";
import type { EntryResult } from "../findings/findings.js";
import type { ConformanceChecker } from "../run/open-checker.js";
import { forwardable, plainFraming, sendable, upstreamRequestHeaders } from "./framing.js";
import { refuseFraming, refuseTunnels } from "./request-head.js";
import type { HarExchange } from "./har.js";

/** Far above the largest upload the service takes (10 MB): bodies up to this are checked. */
export const DEFAULT_CAPTURE_BYTES = 12 * 1024 * 1024;

export interface ProxyOptions {
  /** The service's base URL (http or https); the request's path and query are appended to its path. */
  upstream: URL;
  checker: ConformanceChecker;
  port?: number;
  host?: string;
  /** Bodies larger than this are forwarded whole but not checked (default 12 MiB). */
  captureBytes?: number;
  /** Called with each exchange's verdict as it completes. */
  onResult?: (result: EntryResult) => void;
  /** Called with each exchange that could not be checked, and why (never a recorded value). */
  onUnchecked?: (method: string, why: string) => void;
  /** Called with each completed exchange, for the recording. */
  onExchange?: (exchange: HarExchange) => void;
  /** Awaited before each request is forwarded: a consumer slower than the traffic (the recording) holds it back. */
  ready?: () => Promise<void>;
  /** Wraps the handler: `--sign` adds each request's credentials before it is forwarded (sign-upstream.ts). */
  sign?: (handle: SafeHandler) => SafeHandler;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

/** A copy of a stream's bytes up to a limit; past it the copy is dropped and only the size is kept. */
class Capture {
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

/** The shape of the service's errors on a path (the servers' rule): shape A on manual verification, B elsewhere. */
const proxyError = (status: number, message: string, pathname: string | undefined) =>
  shapeOfPath(pathname) === "A"
    ? {
        metadata: {
          reference: null,
          external_id: null,
          timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
          api_version: "v2",
          request_id: "proxy",
        },
        message,
        error_type: status >= 500 ? "SYSTEM" : "PROXY_REQUEST",
      }
    : { error_code: status >= 500 ? "PROXY_UPSTREAM" : "PROXY_REQUEST", message };

/** Start the proxy; each completed exchange is checked and reported through the callbacks. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const limit = options.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const upstream = options.upstream;
  const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
  const basePath = upstream.pathname.replace(/\/$/, "");
  let index = 0;
  // Exchanges under way: closing waits for their verdicts, so none is lost from the summary.
  const inFlight = new Set<Promise<void>>();

  function handle(req: IncomingMessage, res: ServerResponse, target: RequestTarget): Promise<void> | void {
    // Nothing of a refused request reaches the service; the safe handler answers it and closes the
    // connection, so no unread body is taken for a request, and none pipelined after it is handled.
    refuseFraming(req);
    let settle = (): void => undefined;
    const done = new Promise<void>((resolve) => (settle = resolve));
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    res.once("close", () => setImmediate(settle));
    // The request's body stays unread while held: the client's socket is what waits, not memory.
    const ready = options.ready?.();
    if (!ready) return forward(req, res, target, settle);
    // Returned, so that the safe handler answers anything forward throws after the wait.
    return ready.then(() => {
      if (res.destroyed) settle();
      else forward(req, res, target, settle);
    });
  }

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    settle: () => void,
  ): void {
    const startedAt = new Date();
    const started = performance.now();
    const { headers: requestHeaders, outgoing } = upstreamRequestHeaders(req.rawHeaders, req.headers);
    const path = `${basePath}${target.pathname}${target.query ? `?${target.query}` : ""}`;
    // Raw pairs keep the client's names, order and repeats.
    outgoing.push("Host", upstream.host);
    const requestCapture = new Capture(limit);
    const responseCapture = new Capture(limit);
    const upstreamRequest = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[|\]$/g, ""),
      port: upstream.port || undefined,
      method: req.method,
      path,
      headers: outgoing as unknown as OutgoingHttpHeaders,
    });
    req.on("data", requestCapture.add);
    pipeline(req, upstreamRequest, () => undefined);
    // A client gone before the answer ended: the service's side goes too, not left open until it answers.
    res.once("close", () => {
      if (!res.writableFinished) upstreamRequest.destroy();
    });

    // The client's answer when the service gave none that can be passed on. It names its own reason
    // phrase: one a failed writeHead left on the response (the service's) would be refused again.
    const badGateway = (message: string): void => {
      try {
        if (res.headersSent || res.destroyed) {
          res.destroy();
          return;
        }
        const body = JSON.stringify(proxyError(502, message, target.pathname));
        res.writeHead(502, STATUS_CODES[502], {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          // A request body not read to its end cannot leave the connection fit for another request.
          ...(req.complete ? {} : { connection: "close" }),
        });
        res.end(body);
      } catch {
        res.destroy();
      }
    };
    /** A listener whose throw becomes a 502 (or the end of the answer begun): none reaches the event loop. */
    const guarded =
      <A extends unknown[]>(listener: (...args: A) => void) =>
      (...args: A): void => {
        try {
          listener(...args);
        } catch {
          upstreamRequest.destroy();
          badGateway("The service's answer is not valid HTTP.");
        }
      };
    let answer: IncomingMessage | undefined;
    // No answer from the service (refused, reset, TLS): the client learns it in the service's terms.
    // Bytes after a whole answer (a body on a 304, 204 or HEAD, more than Content-Length said) fail
    // the parse too, but the answer stands: it goes on, and the stray bytes go with the connection.
    upstreamRequest.on(
      "error",
      guarded(() => {
        if (!answer?.complete) badGateway("The proxy could not reach the service.");
      }),
    );
    // A 101 to a request the proxy sent without Upgrade: no answer would ever reach the client.
    upstreamRequest.on(
      "upgrade",
      guarded((_response: IncomingMessage, socket: Duplex) => {
        socket.destroy();
        badGateway("The service's answer is not valid HTTP.");
      }),
    );
    upstreamRequest.on(
      "response",
      guarded((upstreamResponse: IncomingMessage) => {
        answer = upstreamResponse;
        upstreamResponse.on("error", () => undefined);
        if (!plainFraming(upstreamResponse.rawHeaders)) {
          upstreamResponse.destroy();
          badGateway("The service's answer uses a transfer coding the proxy does not pass on.");
          return;
        }
        const responseHeaders = forwardable(upstreamResponse.rawHeaders, new Set());
        // A status, reason phrase or header Node will not send on (a code such as 099, a control
        // character): checked before writing, so nothing of it is left on the response.
        if (!sendable(upstreamResponse.statusCode, upstreamResponse.statusMessage, responseHeaders)) {
          upstreamResponse.destroy();
          badGateway("The service's answer is not valid HTTP.");
          return;
        }
        const flat: string[] = [];
        for (const [name, value] of responseHeaders) flat.push(name, value);
        res.writeHead(upstreamResponse.statusCode as number, upstreamResponse.statusMessage, flat);
        upstreamResponse.on("data", responseCapture.add);
        pipeline(upstreamResponse, res, (error) => {
          if (error) return;
          try {
            finish(upstreamResponse.statusCode ?? 0, responseHeaders);
          } catch {
            // The answer was sent; a verdict or recording that failed on it must not end the proxy.
            options.onUnchecked?.(req.method ?? "GET", "the check or the recording failed");
          }
        });
      }),
    );

    const finish = (status: number, responseHeaders: [string, string][]): void => {
      settle();
      const requestMap = headerMap(requestHeaders);
      const responseMap = headerMap(responseHeaders);
      const requestBody = decoded(requestCapture.bytes(), requestMap["content-encoding"], limit);
      const responseBody = decoded(responseCapture.bytes(), responseMap["content-encoding"], limit);
      const method = (req.method ?? "GET").toUpperCase();
      const exchange: Exchange = {
        index: index++,
        request: {
          method,
          path: target.pathname,
          query: queryOf(target.query),
          headers: requestMap,
          ...(requestCapture.size > 0 && requestBody
            ? { body: { kind: "bytes" as const, bytes: requestBody } }
            : {}),
        },
        response: {
          status,
          headers: responseMap,
          ...(responseBody && responseBody.length > 0
            ? { body: { kind: "bytes" as const, bytes: responseBody } }
            : {}),
          ...(responseCapture.size > 0 && !responseBody ? { bodyNotRecorded: true } : {}),
        },
      };
      // A request body that was not kept cannot be checked: saying "no body" would be a false verdict.
      let result: EntryResult | undefined;
      if (requestCapture.size > 0 && !requestBody)
        options.onUnchecked?.(method, "its request body was over the capture limit or could not be decoded");
      else {
        try {
          result = options.checker.checkExchange(exchange);
        } catch (error) {
          // A check that fails on some input must not end the proxy; the exchange is reported unchecked.
          options.onUnchecked?.(method, `the check failed (${(error as Error)?.name ?? "error"})`);
        }
        if (result) options.onResult?.(result);
      }
      options.onExchange?.({
        startedAt,
        durationMs: Math.round(performance.now() - started),
        method,
        // Not new URL(path, upstream): a path such as `//a:99999/x` would be read as a host.
        target: { origin: upstream.origin, pathname: `${basePath}${target.pathname}`, query: target.query },
        // The recording is made to be judged as this exchange was.
        basePath,
        ...(result ? { verdict: result } : {}),
        request: { headers: requestHeaders, body: requestBody, size: requestCapture.size },
        status,
        response: { headers: responseHeaders, body: responseBody, size: responseCapture.size },
      });
    };
  }

  // No deadline for a whole request: one held while the recording catches up, or an upload paced by
  // a slow service, must not be cut off and lost.
  const server = createSafeServer(options.sign?.(handle) ?? handle, {
    errorBody: proxyError,
    requestTimeoutMs: 0,
  });
  refuseTunnels(server, (status, message) => proxyError(status, message, undefined));
  const listening: Listening = await listen(server, options.port ?? 4011, options.host ?? "127.0.0.1");
  return {
    url: listening.url,
    close: async () => {
      await listening.close();
      await Promise.all(inFlight);
    },
  };
}
