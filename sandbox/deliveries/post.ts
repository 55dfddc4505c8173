// One POST of a webhook delivery (or of the Test button) with node:http, not fetch: the receiver is a
// peer, and its answer is hostile input. fetch decodes Content-Encoding, and undici can end the
// process with an unhandled `SocketError: other side closed` when an answer names six or more
// encodings and its body is cut short; here nothing is decoded, at most MAX_ANSWER_BYTES of the body
// are read, redirects are never followed (a 3xx is only a status), and one deadline covers the
// connection, the request and the answer. Every outcome is a value; nothing is thrown.
//
// Deliveries keep their connection to a receiver open between attempts (an agent per receiver):
// opening and closing one per attempt cost more than the rest of the attempt, and made the API's
// requests wait behind it. A connection is reused only after a whole answer to a whole request; one
// cut short, too long or late is destroyed. A receiver can still write bytes after a whole answer
// that arrive while its next POST waits on that connection: they are read as that POST's answer.
// That misleads only the records of the receiver that wrote them, as any answer it chooses could.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ClientRequest,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Bytes of a receiver's answer read before it is dropped: enough for any acknowledgement. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What came back: the status of a whole answer, or why none came. */
export interface PostOutcome {
  /** The answer's status; null when no whole answer came (none, or one cut short). */
  status: number | null;
  error?: "timeout" | "connection";
}

/** Connections kept open to one receiver at most: as many as its attempts in flight. */
const KEPT_CONNECTIONS = 4;
/** Real milliseconds an idle kept connection stays open (a receiver's Keep-Alive hint may shorten it). */
const IDLE_MS = 5_000;

/** An agent that keeps up to `KEPT_CONNECTIONS` connections to one receiver open between attempts. */
export function receiverAgent(url: string): HttpAgent {
  const options = {
    keepAlive: true,
    maxSockets: KEPT_CONNECTIONS,
    maxFreeSockets: KEPT_CONNECTIONS,
    timeout: IDLE_MS,
  };
  return url.startsWith("https:") ? new HttpsAgent(options) : new HttpAgent(options);
}

/** A POST in flight; `abort()` ends it at once (the sandbox is closing). */
export interface PostInFlight {
  done: Promise<PostOutcome>;
  abort(): void;
}

/**
 * POST `body` to `url` with `headers`, within `timeoutMs` of real time. The answer counts once its
 * headers have arrived and its body has ended, or MAX_ANSWER_BYTES of it have been read (the rest is
 * dropped with the connection); an answer closed before the end it declared is no answer. With an
 * `agent` (from receiverAgent) the connection may be one kept from an earlier attempt; without,
 * it is opened for this POST and closed after it.
 */
export function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  timeoutMs: number,
  agent?: HttpAgent,
): PostInFlight {
  let settle: (outcome: PostOutcome) => void = () => {};
  const done = new Promise<PostOutcome>((resolve) => (settle = resolve));
  let settled = false;
  let req: ClientRequest | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** `whole`: the answer ended as it declared, so its connection may serve the next attempt. */
  const finish = (outcome: PostOutcome, whole = false): void => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    // A connection is kept for the next attempt only after a whole answer to a whole POST (a receiver
    // may answer before reading it all); any other leaves bytes that are no answer of the next one.
    if (!whole || !agent || !req?.writableFinished) req?.destroy();
    settle(outcome);
  };
  const failed = (error: "timeout" | "connection") => () => finish({ status: null, error });
  try {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const payload = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    const sendOn = (via: HttpAgent | false): ClientRequest => {
      const sent = send(target, {
        method: "POST",
        headers: {
          ...headers,
          "Content-Length": String(payload.length),
          ...(via ? {} : { Connection: "close" }),
        },
        agent: via,
      });
      let answer: IncomingMessage | undefined;
      sent.on("error", (error: NodeJS.ErrnoException) => {
        // Bytes after a whole answer (a body on a 204, more than Content-Length said) fail the parse,
        // but the answer stands: its end settles the POST, and the connection is not kept.
        if (answer?.complete) return;
        // A kept connection the receiver closed while it was idle fails before any answer: the
        // POST goes again once, on a connection of its own (Node's documented remedy).
        if (sent.reusedSocket && !answer && error.code === "ECONNRESET" && !settled && req === sent)
          req = sendOn(false);
        else if (req === sent) failed("connection")();
      });
      sent.on("response", (res: IncomingMessage) => {
        answer = res;
        const status = res.statusCode ?? null;
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) finish({ status });
        });
        res.on("end", () => finish({ status }, true));
        // Closed before its end (a Content-Length not met, a chunked body cut off): not an answer.
        res.on("error", failed("connection"));
        res.on("aborted", failed("connection"));
        res.on("close", () => {
          if (!res.complete) failed("connection")();
        });
      });
      sent.end(payload);
      return sent;
    };
    timer = setTimeout(failed("timeout"), timeoutMs);
    req = sendOn(agent ?? false);
  } catch {
    // A URL or header Node refuses (receivers and credentials are checked before, so rare).
    failed("connection")();
  }
  return { done, abort: failed("connection") };
}
