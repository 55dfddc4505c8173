// The POSTs the delivery queue makes, tracked so that closing the queue ends them all: an attempt's
// from the delivery thread on its receiver's kept connections, the Test button's from here.
import { inProcessPost } from "./in-process-receivers.js";
import { type PostInFlight, postOnce } from "./post.js";
import { SENT_BY_SANDBOX } from "../http/self-address.js";
import { authorization } from "./receivers.js";
import type { DeliverySender } from "./sender.js";
import type { Receiver } from "./types.js";

export class Posts {
  private readonly inFlight = new Set<PostInFlight>();
  private closed = false;

  constructor(
    private readonly sender: DeliverySender,
    /** Real milliseconds a POST may take before it counts as unanswered. */
    private readonly timeoutMs: number,
  ) {}

  /**
   * The dashboard's Test button: one POST of `body` to an events receiver, with its credentials, not
   * retried. 2xx and 3xx succeed, as the document says of the button; a redirect is not followed.
   */
  async test(
    receiver: Receiver,
    body: string,
  ): Promise<{ ok: boolean; status: number | null; error?: "timeout" | "connection" }> {
    const outcome = await this.post(
      receiver.url,
      { "Content-Type": "application/json", ...authorization(receiver.auth) },
      body,
    );
    const { status } = outcome;
    return { ok: status !== null && status >= 200 && status < 400, ...outcome };
  }

  /**
   * One POST, tracked so that close() ends it (and its deadline's timer does not outlive the
   * sandbox): an attempt's from the delivery thread on its receiver's kept connections, the Test
   * button's from here on a connection of its own.
   */
  async post(url: string, given: Record<string, string>, body: string, receiverId?: string) {
    // Marked, so that the sandbox refuses it should an alias or a proxy bring it back there.
    const headers = { ...given, [SENT_BY_SANDBOX]: "1" };
    const post =
      inProcessPost(url, headers, body, this.timeoutMs) ??
      (receiverId === undefined
        ? postOnce(url, headers, body, this.timeoutMs)
        : this.sender.post(url, headers, body, this.timeoutMs, receiverId));
    this.inFlight.add(post);
    if (this.closed) post.abort();
    try {
      return await post.done;
    } finally {
      this.inFlight.delete(post);
    }
  }

  /** Abort every POST in flight, and any made from now on. */
  close(): void {
    this.closed = true;
    for (const post of this.inFlight) post.abort();
  }
}
