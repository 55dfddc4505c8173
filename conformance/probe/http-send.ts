// One HTTP request with everything bounded: the answer's bytes, the time it may take, and what a
// peer that closes, resets or never answers can do (an outcome, never an exception). Nothing
// follows a redirect: a 3xx is an answer like any other, so credentials never reach another origin.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** A request to send: the URL, headers in order, and the exact body bytes. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: [string, string][];
  body?: Buffer;
}

/** What came back: a status and headers (without a prototype), the first bytes of the body. */
export interface Answer {
  /** 0 when no answer came (see `failure`). */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than the cap and was cut there. */
  truncated: boolean;
  /** Milliseconds from sending to the status line (time to answer). */
  ms: number;
  /** Why there is no answer. */
  failure?: "timeout" | "closed" | "refused";
}

/** Limits of one request. */
export interface SendLimits {
  timeoutMs: number;
  /** Bytes of the answer's body kept; the rest is discarded unread. */
  maxBodyBytes: number;
}

const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

/** Headers of an answer in a map without a prototype: a name the peer chose never reaches Object's. */
function headerMap(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? "").toLowerCase();
    const value = raw[i + 1] ?? "";
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

/** Send one request; resolves with the answer or the reason there was none, never rejects. */
export function send(request: OutgoingRequest, limits: SendLimits): Promise<Answer> {
  const https = request.url.protocol === "https:";
  const started = performance.now();
  return new Promise<Answer>((resolve) => {
    let settled = false;
    let ms = 0;
    const finish = (answer: Omit<Answer, "ms">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, ms: ms || performance.now() - started });
    };
    const none = (failure: Answer["failure"]) =>
      finish({ status: 0, headers: Object.create(null), body: Buffer.alloc(0), truncated: false, failure });
    const headers: [string, string][] = [...request.headers];
    if (request.body !== undefined && !headers.some(([n]) => n.toLowerCase() === "content-length"))
      headers.push(["Content-Length", String(request.body.length)]);
    const req = (https ? httpsRequest : httpRequest)(request.url, {
      method: request.method,
      // The test's own header names (never the peer's): a plain object keeps their case and order.
      headers: Object.fromEntries(headers),
      agent: https ? agents.https : agents.http,
    });
    const timer = setTimeout(() => {
      none("timeout");
      req.destroy();
    }, limits.timeoutMs);
    let answer: IncomingMessage | undefined;
    req.on("error", (error: NodeJS.ErrnoException) => {
      // Bytes after a whole answer (a body on a 304 or to HEAD, more than Content-Length said) fail
      // the parse, but the answer stands: its end settles the request.
      if (answer?.complete) return;
      none(error.code === "ECONNREFUSED" ? "refused" : "closed");
    });
    req.on("response", (res) => {
      answer = res;
      ms = performance.now() - started;
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      res.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = limits.maxBodyBytes - kept;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          kept += room;
          truncated = true;
          // The rest is not read: a peer that streams forever holds nothing of ours.
          finish({
            status: res.statusCode ?? 0,
            headers: headerMap(res),
            body: Buffer.concat(chunks),
            truncated,
          });
          res.destroy();
          return;
        }
        chunks.push(chunk);
        kept += chunk.length;
      });
      res.on("end", () =>
        finish({
          status: res.statusCode ?? 0,
          headers: headerMap(res),
          body: Buffer.concat(chunks),
          truncated,
        }),
      );
      res.on("error", () =>
        finish({
          status: res.statusCode ?? 0,
          headers: headerMap(res),
          body: Buffer.concat(chunks),
          truncated: true,
        }),
      );
    });
    req.end(request.body);
  });
}

/** Close idle kept-alive sockets so that the process can end. */
export function closeIdleSockets(): void {
  agents.http.destroy();
  agents.https.destroy();
}
