import {
  CLIENT_GONE,
  type CoreResult,
  createCore,
  type DeliveryAnswer,
  type IncomingDelivery,
  TOO_LARGE,
} from "./handler-core.js";
import type { WebhookHandlerOptions } from "./handler-options.js";
import { mountingError } from "./mounting-error.js";

// The parts of node:http's request and response the listener uses, written out so that the
// package's types need no @types/node: node's IncomingMessage and ServerResponse (and Express's,
// and Fastify's `request.raw` and `reply.raw`) have them.

/** What the node:http listener reads of a request: an `IncomingMessage` has it. */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  resume(): unknown;
}

/** What the node:http listener writes of a response: a `ServerResponse` has it. */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  writeHead(statusCode: number, headers: Record<string, string>): unknown;
  end(chunk: string): unknown;
}

/** A receiver of the service's webhooks, in the two forms servers take. */
export interface WebhookHandler {
  /** A `node:http` request listener (also Express's and Connect's `(req, res)`); never throws. */
  node: (req: NodeRequestLike, res: NodeResponseLike) => void;
  /** A fetch handler (Next.js route handlers, Hono, Bun, Deno, workers); never rejects. */
  fetch: (request: Request) => Promise<Response>;
}

/** The declared length, when the header is one whole number. */
function declaredLength(value: string | null | undefined): number | undefined {
  return value && /^\d{1,15}$/.test(value.trim()) ? Number(value) : undefined;
}

/**
 * A body a middleware read before the handler: bytes (express.raw) or text are used; a parsed
 * object is not the delivery's bytes, so it cannot be checked.
 */
function preRead(req: NodeRequestLike): Uint8Array | string | undefined {
  const body = (req as { body?: unknown }).body;
  if (body === undefined || !req.readableEnded) return undefined;
  if (body instanceof Uint8Array || typeof body === "string") return body;
  throw mountingError(
    "The request's body was parsed before the webhook handler (express.json or the like): mount the handler before body parsers, or read the body with express.raw().",
  );
}

/** A node request's body, collected up to `maxBytes`; past it the rest is read and dropped. */
function readNodeBody(req: NodeRequestLike, maxBytes: number): Promise<Uint8Array | typeof TOO_LARGE> {
  const earlier = preRead(req);
  if (earlier !== undefined) {
    const bytes = typeof earlier === "string" ? Buffer.from(earlier, "utf8") : earlier;
    return Promise.resolve(bytes.byteLength > maxBytes ? TOO_LARGE : bytes);
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    // A declared length past the limit: nothing is kept from the start.
    const declared = req.headers["content-length"];
    let tooLarge = (declaredLength(typeof declared === "string" ? declared : undefined) ?? 0) > maxBytes;
    req.on("data", (chunk) => {
      size += chunk.byteLength;
      if (size > maxBytes) tooLarge = true;
      if (tooLarge) chunks.length = 0;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? TOO_LARGE : Buffer.concat(chunks)));
    req.on("error", () => reject(CLIENT_GONE));
    req.on("close", () => {
      if (!req.readableEnded) reject(CLIENT_GONE);
    });
  });
}

/** Write an answer, once the request has been read to its end (so that the sender reads it cleanly). */
function writeNode(req: NodeRequestLike, res: NodeResponseLike, answer: DeliveryAnswer): void {
  const send = () => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  };
  // Refused on the headers alone: the body of a stranger's request is drained, never held.
  if (req.readableEnded || req.destroyed) return send();
  req.on("end", send);
  req.on("error", () => undefined);
  req.resume();
}

/** Start the work that follows the answer, handing it to `defer` when given. */
function startAfter(result: CoreResult, options: WebhookHandlerOptions): void {
  if (!result.after) return;
  const work = result.after();
  try {
    options.defer?.(work);
  } catch {
    // The work runs anyway; a failing defer must not reach the request.
  }
}

/**
 * A receiver of the service's webhooks in one call: credentials checked first, the body read up
 * to a limit and checked against the contract, retries recognised, one typed handler per event,
 * and the right status for each failure, with nothing about a refusal in the answer.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const core = createCore(options);
  return {
    node(req, res) {
      const delivery: IncomingDelivery = {
        method: req.method,
        headers: req.headers,
        body: (maxBytes) => readNodeBody(req, maxBytes),
      };
      void core(delivery).then(
        (result) => {
          try {
            writeNode(req, res, result.answer);
          } catch {
            // The connection is gone: there is nobody to answer.
          }
          startAfter(result, options);
        },
        () => undefined, // the core never rejects
      );
    },
    async fetch(request) {
      const result = await core({
        method: request.method,
        headers: request.headers,
        body: (maxBytes) => readFetchBody(request, maxBytes),
      });
      const { status, headers, body } = result.answer;
      const response = new Response(body, { status, headers });
      startAfter(result, options);
      return response;
    },
  };
}

/** A fetch request's body, read chunk by chunk up to `maxBytes`; past it the stream is cancelled. */
async function readFetchBody(request: Request, maxBytes: number): Promise<Uint8Array | typeof TOO_LARGE> {
  if ((declaredLength(request.headers.get("content-length")) ?? 0) > maxBytes) return TOO_LARGE;
  if (request.bodyUsed)
    throw mountingError(
      "The request's body was read before the webhook handler: hand it the request as it came.",
    );
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A stream that fails mid-way is a sender that went away: nobody to answer or report.
    const { done, value } = await reader.read().catch(() => Promise.reject(CLIENT_GONE));
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
