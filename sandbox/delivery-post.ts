// One POST of a webhook delivery (or of the Test button) with node:http, not fetch: the receiver is a
// peer, and its answer is hostile input. fetch decodes Content-Encoding, and undici can end the
// process with an unhandled `SocketError: other side closed` when an answer names six or more
// encodings and its body is cut short; here nothing is decoded, at most MAX_ANSWER_BYTES of the body
// are read, redirects are never followed (a 3xx is only a status), and one deadline covers the
// connection, the request and the answer. Every outcome is a value; nothing is thrown.
import { request as httpRequest, type IncomingMessage, type ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** Bytes of a receiver's answer read before it is dropped: enough for any acknowledgement. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What came back: the status of a whole answer, or why none came. */
export interface PostOutcome {
  /** The answer's status; null when no whole answer came (none, or one cut short). */
  status: number | null;
  error?: "timeout" | "connection";
}

/** A POST in flight; `abort()` ends it at once (the sandbox is closing). */
export interface PostInFlight {
  done: Promise<PostOutcome>;
  abort(): void;
}

/**
 * POST `body` to `url` with `headers`, within `timeoutMs` of real time. The answer counts once its
 * headers have arrived and its body has ended, or MAX_ANSWER_BYTES of it have been read (the rest is
 * dropped with the connection); an answer closed before the end it declared is no answer.
 */
export function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): PostInFlight {
  let settle: (outcome: PostOutcome) => void = () => {};
  const done = new Promise<PostOutcome>((resolve) => (settle = resolve));
  let settled = false;
  let req: ClientRequest | undefined;
  let timer: NodeJS.Timeout | undefined;
  const finish = (outcome: PostOutcome): void => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    // Nothing more is wanted from this connection: no body left to read, no socket kept.
    req?.destroy();
    settle(outcome);
  };
  const failed = (error: "timeout" | "connection") => () => finish({ status: null, error });
  try {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const payload = Buffer.from(body, "utf8");
    req = send(target, {
      method: "POST",
      headers: { ...headers, "Content-Length": String(payload.length), Connection: "close" },
      // One connection per attempt: a socket a receiver kept open cannot fail the next attempt.
      agent: false,
    });
    timer = setTimeout(failed("timeout"), timeoutMs);
    req.on("error", failed("connection"));
    req.on("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? null;
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) finish({ status });
      });
      res.on("end", () => finish({ status }));
      // Closed before its end (a Content-Length not met, a chunked body cut off): not an answer.
      res.on("error", failed("connection"));
      res.on("aborted", failed("connection"));
      res.on("close", () => {
        if (!res.complete) failed("connection")();
      });
    });
    req.end(payload);
  } catch {
    // A URL or header Node refuses (receivers and credentials are checked before, so rare).
    failed("connection")();
  }
  return { done, abort: failed("connection") };
}
