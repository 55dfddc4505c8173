// One exchange through the proxy, in steps: the request's headers for the service, the request sent
// on (its body kept within the limit as it streams), the service's answer passed back (or a 502 when
// there is none that can be), then the exchange checked and recorded.
import {
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import { type Duplex, pipeline } from "node:stream";
import type { RequestTarget } from "../../src/server/index.js";
import type { EntryResult } from "../findings/findings.js";
import { forwardable, plainFraming, sendable, upstreamRequestHeaders } from "./framing.js";
import type { BudgetHolder } from "./budget.js";
import { Capture, type Captured, captureTap, capturedSide, toExchange } from "./capture.js";
import { type ProxyContext, proxyError } from "./proxy-context.js";

/**
 * The request's headers as the service gets them: `headers`, the client's pairs as the checker and the
 * recording read them; `outgoing`, the flat list sent (framing made explicit, the service's Host).
 * Every header added for the service is added here.
 */
export function upstreamHeaders(
  ctx: ProxyContext,
  req: IncomingMessage,
): { headers: [string, string][]; outgoing: string[] } {
  const built = upstreamRequestHeaders(req.rawHeaders, req.headers);
  // Raw pairs keep the client's names, order and repeats.
  built.outgoing.push("Host", ctx.upstream.host);
  return built;
}

/**
 * Forward one request to the service and its answer to the client, then check and record it; its
 * share of the budget (`ctx.holderOf(res)`) closes once all that is done.
 */
export function forward(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  target: RequestTarget,
): void {
  new ForwardedExchange(ctx, req, res, target);
}

class ForwardedExchange {
  private readonly startedAt = new Date();
  private readonly started = performance.now();
  private readonly requestHeaders: [string, string][];
  private readonly requestCapture: Capture;
  private readonly responseCapture: Capture;
  private readonly upstreamRequest: ClientRequest;
  /** What this exchange holds of the proxy's budget. */
  private readonly holder: BudgetHolder;
  /** The service's answer, once its head has arrived. */
  private answer: IncomingMessage | undefined;

  constructor(
    private readonly ctx: ProxyContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly target: RequestTarget,
  ) {
    const { headers, outgoing } = upstreamHeaders(ctx, req);
    this.requestHeaders = headers;
    this.holder = ctx.holderOf(res);
    this.requestCapture = new Capture(ctx.limit, this.holder);
    this.responseCapture = new Capture(ctx.limit, this.holder);
    this.upstreamRequest = this.sendUpstream(outgoing);
    this.awaitAnswer();
  }

  /** The request sent on as it streams in, a copy of its body kept within the limit. */
  private sendUpstream(outgoing: string[]): ClientRequest {
    const { ctx, req, res, target } = this;
    const path = `${ctx.basePath}${target.pathname}${target.query ? `?${target.query}` : ""}`;
    const upstreamRequest = ctx.send({
      protocol: ctx.upstream.protocol,
      hostname: ctx.upstream.hostname.replace(/^\[|\]$/g, ""),
      port: ctx.upstream.port || undefined,
      method: req.method,
      path,
      headers: outgoing as unknown as OutgoingHttpHeaders,
    });
    // Through the tap: while the budget is spent, the client's body waits in its socket.
    pipeline(req, captureTap(this.requestCapture), upstreamRequest, () => undefined);
    // A client gone before the answer ended: the service's side goes too, not left open until it answers.
    res.once("close", () => {
      if (!res.writableFinished) upstreamRequest.destroy();
    });
    return upstreamRequest;
  }

  /** What the service does with the request: fails, answers with an upgrade, or answers. */
  private awaitAnswer(): void {
    // No answer from the service (refused, reset, TLS): the client learns it in the service's terms.
    // Bytes after a whole answer (a body on a 304, 204 or HEAD, more than Content-Length said) fail
    // the parse too, but the answer stands: it goes on, and the stray bytes go with the connection.
    this.upstreamRequest.on(
      "error",
      this.guarded(() => {
        if (!this.answer?.complete) this.badGateway("The proxy could not reach the service.");
      }),
    );
    // A 101 to a request the proxy sent without Upgrade: no answer would ever reach the client.
    this.upstreamRequest.on(
      "upgrade",
      this.guarded((_response: IncomingMessage, socket: Duplex) => {
        socket.destroy();
        this.badGateway("The service's answer is not valid HTTP.");
      }),
    );
    this.upstreamRequest.on(
      "response",
      this.guarded((upstreamResponse: IncomingMessage) => this.answerClient(upstreamResponse)),
    );
  }

  /** The service's answer passed back to the client as it streams, a copy of its body kept within the limit. */
  private answerClient(upstreamResponse: IncomingMessage): void {
    const { res } = this;
    this.answer = upstreamResponse;
    upstreamResponse.on("error", () => undefined);
    if (!plainFraming(upstreamResponse.rawHeaders)) {
      upstreamResponse.destroy();
      this.badGateway("The service's answer uses a transfer coding the proxy does not pass on.");
      return;
    }
    const responseHeaders = forwardable(upstreamResponse.rawHeaders, new Set());
    // A status, reason phrase or header Node will not send on (a code such as 099, a control
    // character): checked before writing, so nothing of it is left on the response.
    if (!sendable(upstreamResponse.statusCode, upstreamResponse.statusMessage, responseHeaders)) {
      upstreamResponse.destroy();
      this.badGateway("The service's answer is not valid HTTP.");
      return;
    }
    const flat: string[] = [];
    for (const [name, value] of responseHeaders) flat.push(name, value);
    res.writeHead(upstreamResponse.statusCode as number, upstreamResponse.statusMessage, flat);
    // Through the tap: while the budget is spent, the service's answer waits in its socket.
    pipeline(upstreamResponse, captureTap(this.responseCapture), res, (error) => {
      if (error) return;
      // The check holds the exchange's bytes until it is recorded, after the answer has closed.
      this.holder.use();
      this.finish(upstreamResponse.statusCode ?? 0, responseHeaders)
        .catch(() => {
          // The answer was sent; a verdict or recording that failed on it must not end the proxy.
          this.ctx.options.onUnchecked?.(this.req.method ?? "GET", "the check or the recording failed");
        })
        .finally(() => this.holder.endUse());
    });
  }

  /** The answer is sent: check the exchange, then record it. */
  private async finish(status: number, responseHeaders: [string, string][]): Promise<void> {
    const { ctx, holder } = this;
    // One side at a time: at most one joined or decoded copy is made at once (perExchangeBytes).
    const request = await capturedSide(this.requestHeaders, this.requestCapture, ctx.limit, holder);
    const response = await capturedSide(responseHeaders, this.responseCapture, ctx.limit, holder);
    const method = (this.req.method ?? "GET").toUpperCase();
    const captured: Captured = {
      index: ctx.nextIndex(),
      method,
      target: this.target,
      status,
      request,
      response,
    };
    this.record(captured, this.check(captured));
  }

  /** The exchange's verdict; undefined (and said) when it cannot be checked. */
  private check(captured: Captured): EntryResult | undefined {
    const { options } = this.ctx;
    const { method, request } = captured;
    const exchange = toExchange(captured);
    // A request body that was not kept cannot be checked: saying "no body" would be a false verdict.
    if (request.capture.size > 0 && !request.body) {
      options.onUnchecked?.(method, "its request body was over the capture limit or could not be decoded");
      return undefined;
    }
    let result: EntryResult | undefined;
    try {
      result = options.checker.checkExchange(exchange);
    } catch (error) {
      // A check that fails on some input must not end the proxy; the exchange is reported unchecked.
      options.onUnchecked?.(method, `the check failed (${(error as Error)?.name ?? "error"})`);
    }
    if (result) options.onResult?.(result);
    return result;
  }

  /** The exchange and its verdict, for the recording. */
  private record({ method, status, request, response }: Captured, result: EntryResult | undefined): void {
    const { ctx, target } = this;
    ctx.options.onExchange?.({
      startedAt: this.startedAt,
      durationMs: Math.round(performance.now() - this.started),
      method,
      // Not new URL(path, upstream): a path such as `//a:99999/x` would be read as a host.
      target: {
        origin: ctx.upstream.origin,
        pathname: `${ctx.basePath}${target.pathname}`,
        query: target.query,
      },
      // The recording is made to be judged as this exchange was.
      basePath: ctx.basePath,
      ...(result ? { verdict: result } : {}),
      request: { headers: request.headers, body: request.body, size: request.capture.size },
      status,
      response: { headers: response.headers, body: response.body, size: response.capture.size },
    });
  }

  /**
   * The client's answer when the service gave none that can be passed on. It names its own reason
   * phrase: one a failed writeHead left on the response (the service's) would be refused again.
   */
  private badGateway(message: string): void {
    const { req, res } = this;
    try {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      const body = JSON.stringify(proxyError(502, message, this.target.pathname));
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
  }

  /** A listener whose throw becomes a 502 (or the end of the answer begun): none reaches the event loop. */
  private guarded<A extends unknown[]>(listener: (...args: A) => void): (...args: A) => void {
    return (...args: A): void => {
      try {
        listener(...args);
      } catch {
        this.upstreamRequest.destroy();
        this.badGateway("The service's answer is not valid HTTP.");
      }
    };
  }
}
