// The retry schedule of a delivery, in one place: a delivery not acknowledged by a 2xx is retried up
// to MAX_RETRIES times, each retry's delay doubling from BACKOFF_BASE_MS, on the virtual clock.

/** Retries after the first attempt. */
export const MAX_RETRIES = 8;

/** The first retry's delay; each next one doubles: 70 s … 8960 s, the last 4 h 57 min 30 s after the first try. */
export const BACKOFF_BASE_MS = 70_000;

/** The delay before retry `n` (1-based). */
export const backoff = (n: number): number => BACKOFF_BASE_MS * 2 ** (n - 1);

/** Whether a delivery that has had `attempts` attempts may have another. */
export const retriesLeft = (attempts: number): boolean => attempts <= MAX_RETRIES;
