import { backoffDelay, isRetryableStatus, type RetryOptions, retryAfterMs } from "./retry.js";
import { SigningRequest } from "./signing-request.js";

/** A fetch: the init, when given, carries the abort signal of the client's timeout. */
export type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  fetch: Fetch;
  /** Per attempt, until the response headers arrive; 0 turns it off. */
  timeoutMs: number;
  retry: RetryOptions;
  /** Prepares a request for another attempt (a v4 request gets a fresh date and signature). */
  renew: (request: Request) => Request | Promise<Request>;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Raised when an attempt gets no response headers within the timeout. */
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

/** One attempt, aborted after timeoutMs (or by the caller's signal) even if the fetch ignores its signal. */
function attempt(
  fetch: Fetch,
  request: Request,
  timeoutMs: number,
  ext: object | undefined,
): Promise<Response> {
  if (!(timeoutMs > 0)) return fetch(request, ext);
  const controller = new AbortController();
  return new Promise<Response>((resolve, reject) => {
    // After the answer, rejecting is a no-op but aborting still stops the body download.
    const fail = (reason: unknown) => {
      controller.abort(reason);
      reject(reason);
    };
    const timer = setTimeout(() => {
      const { pathname } = new URL(request.url);
      fail(new TimeoutError(`${request.method} ${pathname} got no response within ${timeoutMs} ms`));
    }, timeoutMs);
    // Listening costs per request, so only when the caller may have given a signal.
    if (SigningRequest.of(request)?.hasCallerSignal !== false) {
      const caller = request.signal;
      if (caller.aborted) fail(caller.reason);
      else caller.addEventListener("abort", () => fail(caller.reason), { once: true });
    }
    fetch(request, { ...ext, signal: controller.signal }).then(
      (response) => {
        clearTimeout(timer);
        resolve(response);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** A fetch with a per-attempt timeout and, for GET only, retries on network errors, 429 and 5xx. */
export function createTransport(options: TransportOptions): Fetch {
  const { fetch, timeoutMs, retry, renew, random = Math.random, sleep = wait } = options;
  const withRetries = async (first: Request, ext: object | undefined, retries: number) => {
    let request = first;
    for (let n = 0; ; n++) {
      let response: Response | undefined;
      try {
        response = await attempt(fetch, request, timeoutMs, ext);
      } catch (error) {
        // A network error or a timeout; the caller's own abort is final.
        if (request.signal.aborted || n >= retries) throw error;
      }
      if (response && (n >= retries || !isRetryableStatus(response.status))) return response;
      const asked = response ? retryAfterMs(response.headers.get("Retry-After")) : undefined;
      // A Retry-After longer than the longest wait is honoured by not retrying sooner: give up.
      if (response && asked !== undefined && asked > retry.maxDelayMs) return response;
      await response?.body?.cancel();
      await sleep(asked ?? backoffDelay(n, retry, random), request.signal);
      request = await renew(request);
    }
  };
  return (first, ext?: object) => {
    // POST, PUT and PATCH are never repeated: the service may have acted on the first attempt.
    const retries = first.method === "GET" ? retry.retries : 0;
    return retries > 0 ? withRetries(first, ext, retries) : attempt(fetch, first, timeoutMs, ext);
  };
}
