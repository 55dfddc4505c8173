// Receivers in this process (createSandbox's `receivers.add`): a fetch-style handler called with each
// delivery as a WHATWG Request, its Response's status the outcome, as a receiver over HTTP answers.
//
// Each sandbox owns its handlers (ReceiverHandlers): a handler stays reachable only while the
// receiver it was registered as is, and nothing holds it once that receiver is removed (DELETE,
// reset with receivers) or the sandbox closed. Handlers may hold what a test collected; a removed
// one kept until close() would hold it for the rest of the run. The table the POSTs look a URL up in
// is shared by every sandbox of the process (the delivery queue knows a receiver by its URL alone),
// and holds only the handlers their sandboxes still keep.
import { randomUUID } from "node:crypto";
import { MAX_ANSWER_BYTES, type PostInFlight, type PostOutcome } from "./post.js";

/**
 * A receiver in this process: a fetch-style handler (a framework's route handler) that gets each
 * delivery as a WHATWG Request and answers a Response, as a receiver over HTTP would.
 */
export type ReceiverHandler = (request: Request) => Response | Promise<Response>;

/**
 * The live handlers by the URL they are registered under: `http://<random>.receiver.invalid/`, a
 * name no resolver answers (RFC 6761), so that only this process reaches the handler, and a list
 * showing the URL shows nothing else. Written only by ReceiverHandlers.
 */
const live = new Map<string, ReceiverHandler>();

/** The handlers reachable in this process, all sandboxes together (for tests: what is held). */
export function liveReceiverHandlers(): number {
  return live.size;
}

/** The handlers one in-process sandbox registered: each reachable while its receiver is registered. */
export class ReceiverHandlers {
  /** URLs whose receiver is being registered: kept whatever the receivers list says until then. */
  private readonly pending = new Set<string>();
  /** URLs whose receiver was registered. */
  private readonly registered = new Set<string>();
  private closed = false;

  constructor(
    /** The URLs of the sandbox's receivers as they stand. */
    private readonly receiverUrls: () => Iterable<string>,
  ) {}

  /** Reach `handler` at a new URL, until `registeredAs` or `forget` says; an Error once closed. */
  add(handler: ReceiverHandler): string {
    if (this.closed) throw new Error("receivers.add: the sandbox is closed");
    const url = `http://${randomUUID()}.receiver.invalid/`;
    live.set(url, handler);
    this.pending.add(url);
    return url;
  }

  /**
   * Its receiver was registered: from now on the handler lives as long as the receiver (one removed
   * meanwhile takes it at once). An Error, the handler forgotten, when the sandbox closed meanwhile.
   */
  registeredAs(url: string): void {
    const was = this.pending.delete(url);
    if (this.closed) {
      this.forget(url);
      throw new Error("receivers.add: the sandbox closed while the receiver was added");
    }
    if (!was) return;
    this.registered.add(url);
    this.prune();
  }

  /** Forget a handler: its URL reaches no one, and nothing here holds it. */
  forget(url: string): void {
    this.pending.delete(url);
    this.registered.delete(url);
    live.delete(url);
  }

  /** Forget every registered handler whose receiver the sandbox no longer has (after a removal). */
  prune(): void {
    if (this.registered.size === 0) return;
    const kept = new Set(this.receiverUrls());
    for (const url of this.registered) if (!kept.has(url)) this.forget(url);
  }

  /** Refuse new handlers from now on; `forgetAll` once the sandbox's deliveries have stopped. */
  close(): void {
    this.closed = true;
  }

  /** Forget every handler (the sandbox is closed: nothing is delivered to them again). */
  forgetAll(): void {
    this.closed = true;
    for (const url of [...this.pending, ...this.registered]) this.forget(url);
  }
}

/** Read a handler's answer to its end, at most MAX_ANSWER_BYTES of it (the rest is dropped). */
async function drainAnswer(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
    if (read > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      return;
    }
  }
}

/**
 * The POST to an in-process receiver, when `url` is one (else undefined): its handler called with
 * a Request, within `timeoutMs` of real time, its Response's status the outcome; a throw, a
 * rejection or anything but a Response is no answer, as a connection that failed.
 */
export function inProcessPost(
  url: string,
  headers: Record<string, string>,
  body: string | Buffer,
  timeoutMs: number,
): PostInFlight | undefined {
  const handler = live.get(url);
  if (!handler) return undefined;
  const controller = new AbortController();
  let settle: (outcome: PostOutcome) => void = () => {};
  const done = new Promise<PostOutcome>((resolve) => (settle = resolve));
  let settled = false;
  const finish = (outcome: PostOutcome): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    // The handler may watch request.signal: the attempt is over for the sandbox.
    if (outcome.status === null) controller.abort();
    settle(outcome);
  };
  const timer = setTimeout(() => finish({ status: null, error: "timeout" }), timeoutMs);
  const payload = typeof body === "string" ? body : new Uint8Array(body);
  void (async () => {
    try {
      // Called after the current work, as a POST over a socket would be answered.
      await null;
      const request = new Request(url, { method: "POST", headers, body: payload, signal: controller.signal });
      const response: unknown = await handler(request);
      // Response.error() has status 0: a network error, as fetch reads it.
      if (!(response instanceof Response) || response.status === 0) throw new TypeError("no answer");
      await drainAnswer(response);
      finish({ status: response.status });
    } catch {
      finish({ status: null, error: "connection" });
    }
  })();
  return { done, abort: () => finish({ status: null, error: "connection" }) };
}
