/** When and how often a GET is tried again. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries: number;
  /** Delay before the first retry, doubled each time, before jitter (default 250 ms). */
  baseDelayMs: number;
  /** No wait is longer; a Retry-After beyond it ends the retries (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 2, baseDelayMs: 250, maxDelayMs: 30_000 };

/** Whether a status is worth trying again: 429 and every 5xx. */
export const isRetryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** Full-jitter exponential backoff: a random delay in [0, base * 2^attempt], capped. */
export function backoffDelay(
  attempt: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  return Math.round(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt));
}

/** Milliseconds a Retry-After header asks to wait (delta-seconds or an HTTP date); undefined if absent or invalid. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date always names its day or month; Date.parse alone would read "-5" as a year.
  const at = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
