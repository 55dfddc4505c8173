// A WHATWG request body read in this process, bounded as the node:http server bounds a socket's:
// at most `maxBytes` read (one byte more and the stream is cancelled, never read on), a deadline
// (a 408, as the server's requestTimeout), and the caller's AbortSignal (the fetch rejects with its
// reason, as fetch does). A stream that enqueues synchronously resolves every read in a microtask:
// read in a loop, it would hold the event loop, so the reading gives the loop a turn now and then.
import type { BodyRead } from "./body.js";
import { HttpError } from "./handler.js";

/** How long a body may take to be read: the node:http server's default requestTimeout. */
export const BODY_TIMEOUT_MS = 60_000;

/** Reads between two turns of the event loop: a body of a few chunks never waits for one. */
export const READS_PER_TURN = 256;

const LATE = "The request took too long to arrive.";
const FAILED = "The request body could not be read.";

export interface StreamBodyOptions {
  /** The caller's signal: once aborted, reading stops and `gone` rejects with its reason. */
  signal?: AbortSignal | null;
  /** The reading's deadline in ms, from its start (then a 408); 0: none. BODY_TIMEOUT_MS by default. */
  timeoutMs?: number;
}

/** A request body as the fetch adapter reads it. */
export interface StreamBody {
  /** The body, at most `maxBytes` of it read: one byte more is `tooLarge`, the stream cancelled. */
  read(maxBytes: number): Promise<BodyRead>;
  /**
   * Rejects once the caller is gone, as fetch would reject: its signal aborted (with the signal's
   * reason) or its stream failed (a TypeError). Never resolves.
   */
  gone: Promise<never>;
  /** Stop listening, and cancel what was not read (the answer was made without it). */
  close(): void;
}

/** A turn of the event loop: timers and I/O run before the reading goes on. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Cancel a stream, never waiting for it (its cancel may never settle) nor failing. */
function cancelQuietly(cancel: () => Promise<void>): void {
  try {
    cancel().catch(() => undefined);
  } catch {
    // Already released or errored: nothing is left to cancel.
  }
}

/**
 * A request body read within a limit, a deadline and the caller's signal. Most requests in this
 * process are answered before the event loop turns: their signal is only looked at (a listener on
 * a fresh signal costs more than the rest of a small body's reading), and the listener and the
 * deadline's timer are set once a turn has passed with the request still unanswered.
 */
export function streamBody(
  stream: ReadableStream<Uint8Array> | null,
  options: StreamBodyOptions = {},
): StreamBody {
  const { signal } = options;
  const timeoutMs = options.timeoutMs ?? BODY_TIMEOUT_MS;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended = false;
  let closed = false;
  let armed = false;
  let stopped: unknown;
  let rejectGone: (reason: unknown) => void = () => undefined;
  const gone = new Promise<never>((_, reject) => (rejectGone = reject));
  // Nobody may be waiting on it any more (the answer was made): its rejection is no failure.
  gone.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** Stop reading for `why` (what `read` rejects with): a pending read ends at once as the stream is cancelled. */
  const stop = (why: unknown): void => {
    stopped ??= why;
    disarmTimer();
    if (reader && !ended) cancelQuietly(() => (reader as ReadableStreamDefaultReader<Uint8Array>).cancel());
    ended = true;
  };
  const disarmTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const armTimer = (): void => {
    if (armed && reader && !ended && timer === undefined && timeoutMs > 0)
      timer = setTimeout(() => stop(new HttpError(408, LATE)), timeoutMs);
  };
  /** The caller's signal aborted: the fetch rejects with its reason, and the reading stops. */
  const aborted = (): boolean => {
    if (!signal?.aborted) return false;
    rejectGone(signal.reason);
    // The fetch rejected already; what the app makes of this is never seen.
    stop(new HttpError(400, FAILED));
    return true;
  };
  const onAbort = (): void => void aborted();
  const arming = setImmediate(() => {
    armed = true;
    if (closed || aborted()) return;
    signal?.addEventListener("abort", onAbort, { once: true });
    armTimer();
  });

  /** The caller's stream failed: its fetch rejects with a TypeError, as fetch's does. */
  const failed = (cause: unknown): unknown => {
    // Aborted first (in the very pull that failed, say): the abort is what fetch would tell.
    if (aborted()) return stopped;
    rejectGone(new TypeError("fetch failed", { cause }));
    const why = new HttpError(400, FAILED);
    stop(why);
    return why;
  };

  const readAll = async (maxBytes: number): Promise<BodyRead> => {
    if (stopped !== undefined || aborted()) throw stopped;
    if (!stream) return { ok: true, bytes: Buffer.alloc(0) };
    if (reader) throw new TypeError("The request body was read already.");
    const reading = stream.getReader();
    reader = reading;
    armTimer();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (let reads = 1; ; reads++) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reading.read();
      } catch (error) {
        if (stopped !== undefined) throw stopped;
        throw failed(error);
      }
      if (stopped !== undefined) throw stopped;
      if (next.done) break;
      const value: unknown = next.value;
      // What fetch refuses to send: a chunk that is not bytes.
      if (!(value instanceof Uint8Array))
        throw failed(new TypeError("A request body chunk is not a Uint8Array."));
      size += value.byteLength;
      if (size > maxBytes) {
        stop(undefined);
        return { ok: false, tooLarge: true, size };
      }
      chunks.push(value);
      if (reads % READS_PER_TURN === 0) {
        await turn();
        if (stopped !== undefined || aborted()) throw stopped;
      }
    }
    ended = true;
    disarmTimer();
    return { ok: true, bytes: Buffer.concat(chunks, size) };
  };

  return {
    // Every way out of readAll disarms the deadline: stop() does, and so does its end.
    read: readAll,
    gone,
    close: () => {
      if (closed) return;
      closed = true;
      clearImmediate(arming);
      if (armed) signal?.removeEventListener("abort", onAbort);
      disarmTimer();
      if (ended) return;
      ended = true;
      // Not read to its end: cancelled, so its source stops (a client's stream is released, MSW's
      // clone of it no longer fills).
      if (reader) cancelQuietly(() => (reader as ReadableStreamDefaultReader<Uint8Array>).cancel());
      else if (stream && !stream.locked) cancelQuietly(() => stream.cancel());
    },
  };
}
