// Request bodies a test controls, for the in-process fetch and MSW: a stream that counts every byte
// pulled from it (memory is bounded by what is read, and this is what was read), and says when it was
// cancelled. It enqueues in pull() synchronously (a stream that never lets the event loop turn), in a
// microtask or after a turn; it ends by closing, erroring, or never (a stall); `onPull` sees each pull.
import fc from "fast-check";

export type Enqueue = "sync" | "microtask" | "turn";
export type Ending = "close" | "error" | "stall" | "not-bytes";

export interface StreamPlan {
  /** Bytes per chunk (at least 1). */
  chunk: number;
  /** Bytes before the ending; Infinity: an endless body. */
  total: number;
  enqueue: Enqueue;
  ending: Ending;
}

export interface CountedStream {
  stream: ReadableStream<Uint8Array>;
  /** Bytes pulled from it so far. */
  pulled(): number;
  /** Pulls so far. */
  pulls(): number;
  /** Whether its cancel was called (the reader gave it up). */
  cancelled(): boolean;
  /** Whether it ended by itself (closed or errored): a reader that gave up before must cancel it. */
  endedByItself(): boolean;
  /** Settles when its cancel is called. */
  whenCancelled: Promise<void>;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A stream that follows `plan`, counting what is pulled; `onPull(n)` runs at the n-th pull (from 1). */
export function countedStream(plan: StreamPlan, onPull?: (pull: number) => void): CountedStream {
  let pulled = 0;
  let pulls = 0;
  let cancelled = false;
  let ended = false;
  let markCancelled: () => void = () => undefined;
  const whenCancelled = new Promise<void>((resolve) => (markCancelled = resolve));
  const bytes = new Uint8Array(plan.chunk).fill(0x20);
  const step = (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | void => {
    // A pull deferred past the reader's cancel delivers nothing.
    if (cancelled) return;
    if (pulled >= plan.total) {
      ended = plan.ending === "close" || plan.ending === "error";
      if (plan.ending === "close") controller.close();
      else if (plan.ending === "error") controller.error(new Error("the client's stream failed"));
      else if (plan.ending === "not-bytes") controller.enqueue("not bytes" as unknown as Uint8Array);
      // A stall: this pull never settles, and the stream is never pulled again.
      else return new Promise<void>(() => undefined);
      return;
    }
    const size = Math.min(plan.chunk, plan.total - pulled);
    pulled += size;
    controller.enqueue(size === plan.chunk ? bytes : bytes.subarray(0, size));
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulls++;
        onPull?.(pulls);
        if (plan.enqueue === "sync") return step(controller);
        const later = plan.enqueue === "microtask" ? Promise.resolve() : turn();
        return later.then(() => step(controller));
      },
      cancel() {
        cancelled = true;
        markCancelled();
      },
    },
    // Pulled only when read: what was pulled is what a reader asked for.
    { highWaterMark: 0 },
  );
  return {
    stream,
    pulled: () => pulled,
    pulls: () => pulls,
    cancelled: () => cancelled,
    endedByItself: () => ended,
    whenCancelled,
  };
}

/** An endless body of `chunk`-byte chunks enqueued synchronously, ending after `cap` bytes (so a reader with no limit ends too). */
export const endless = (chunk: number, cap: number): StreamPlan => ({
  chunk,
  total: cap,
  enqueue: "sync",
  ending: "close",
});

/** How the caller aborts: never, before the fetch, or at the n-th pull; with the default reason or a TimeoutError. */
export type AbortPlan = { at: "never" } | { at: "before" | number; reason: "default" | "timeout" };

/** The signal of an AbortPlan, and the abort it runs at the n-th pull. */
export function abortOf(plan: AbortPlan): {
  signal?: AbortSignal;
  onPull(pull: number): void;
  reason(): unknown;
} {
  if (plan.at === "never") return { onPull: () => undefined, reason: () => undefined };
  const controller = new AbortController();
  const abort = () =>
    plan.reason === "timeout"
      ? controller.abort(new DOMException("The operation timed out.", "TimeoutError"))
      : controller.abort();
  if (plan.at === "before") abort();
  return {
    signal: controller.signal,
    onPull: (pull) => {
      if (pull === plan.at) abort();
    },
    reason: () => (controller.signal.aborted ? controller.signal.reason : undefined),
  };
}

/** Random abort plans: mostly at a pull within the first few, sometimes before, sometimes never. */
export const abortPlans = (maxPull: number): fc.Arbitrary<AbortPlan> =>
  fc.oneof(
    fc.constant<AbortPlan>({ at: "never" }),
    fc.record({
      at: fc.oneof(fc.constant<"before">("before"), fc.integer({ min: 1, max: maxPull })),
      reason: fc.constantFrom<"default" | "timeout">("default", "timeout"),
    }),
  );
