import { CodingsError } from "./content-codings.js";
import { ApiRequestError } from "./errors.js";
import { type CallScope, type Resign, sendFollowingRedirects } from "./redirects.js";
import { backoffDelay, isRetryableStatus, type RetryOptions, retryAfterMs } from "./retry.js";
import { SigningRequest } from "./signing-request.js";
import type { Fetch } from "./fetch.js";

export type { Fetch };

/** Sends one call's request: openapi-fetch's init extension, and the call it belongs to. */
export type Send = (request: Request, ext: object | undefined, call: CallScope) => Promise<Response>;

export interface TransportOptions {
  fetch: Fetch;
  /** Per attempt, for the whole exchange: headers and body; 0 turns it off. */
  timeoutMs: number;
  retry: RetryOptions;
  /** Prepares a request for another attempt (a v4 request gets a fresh date and signature). */
  renew: (request: Request) => Request | Promise<Request>;
  /** Re-signs the request a same-origin redirect asks for. */
  resign: Resign;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Raised when an attempt gets no response headers, or not the whole body, within the timeout. */
export class TimeoutError extends Error {
  override name = "TimeoutError";
}
const wait = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });

/**
 * One attempt, aborted after timeoutMs (or by the caller's signal) even if the fetch ignores its signal.
 * The deadline covers the body too: it runs on after the headers until the call stops it (its body read)
 * or fails the call through its scope.
 */
function attempt(
  options: TransportOptions,
  request: Request,
  ext: object | undefined,
  call: CallScope,
): Promise<Response> {
  const { fetch, timeoutMs, resign } = options;
  if (!(timeoutMs > 0)) return sendFollowingRedirects(fetch, request, ext, call, resign);
  const controller = new AbortController();
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    // Aborting also stops a body download in progress; after the answer, the call itself is failed.
    const fail = (reason: unknown) => {
      controller.abort(reason);
      if (!answered) reject(reason);
      else call.fail?.(reason);
    };
    const timer = setTimeout(
      () =>
        fail(
          new TimeoutError(
            `${call.where} got no ${answered ? "complete " : ""}response within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
    // Listening costs per request, so only when the caller may have given a signal.
    if (SigningRequest.of(request)?.hasCallerSignal !== false) {
      const caller = request.signal;
      if (caller.aborted) fail(caller.reason);
      else caller.addEventListener("abort", () => fail(caller.reason), { once: true });
    }
    const init: RequestInit = { ...ext, signal: controller.signal, redirect: "manual" };
    sendFollowingRedirects(fetch, request, init, call, resign).then(
      (response) => {
        answered = true;
        // Without a call to settle (openapi-fetch's own fetch), the deadline ends with the headers.
        if (call.fail) call.stop = clearTimeout.bind(undefined, timer);
        else clearTimeout(timer);
        resolve(response);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Sending with a whole-request deadline per attempt, same-origin redirects, and retries of GETs only. */
export function createTransport(options: TransportOptions): Send {
  const { retry, renew, random = Math.random, sleep = wait } = options;
  const withRetries = async (first: Request, ext: object | undefined, call: CallScope, retries: number) => {
    let request = first;
    for (let n = 0; ; n++) {
      let response: Response | undefined;
      try {
        response = await attempt(options, request, ext, call);
      } catch (error) {
        // A network error or a timeout; the caller's own abort, a refused redirect or answer are final.
        if (
          request.signal.aborted ||
          n >= retries ||
          error instanceof ApiRequestError ||
          // A fetch may reject with anything, undefined included.
          (error as { cause?: unknown } | null | undefined)?.cause instanceof CodingsError
        ) {
          throw error;
        }
      }
      if (response && (n >= retries || !isRetryableStatus(response.status))) return response;
      const asked = response ? retryAfterMs(response.headers.get("Retry-After")) : undefined;
      // A Retry-After longer than the longest wait is honoured by not retrying sooner: give up.
      if (response && asked !== undefined && asked > retry.maxDelayMs) return response;
      // This answer is not the call's: its deadline ends here.
      call.stop?.();
      await response?.body?.cancel();
      await sleep(asked ?? backoffDelay(n, retry, random), request.signal);
      request = await renew(request);
    }
  };
  return (first, ext, call) => {
    // POST, PUT and PATCH are never repeated: the service may have acted on the first attempt.
    const retries = first.method === "GET" ? retry.retries : 0;
    return retries > 0 ? withRetries(first, ext, call, retries) : attempt(options, first, ext, call);
  };
}
