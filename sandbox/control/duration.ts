// ISO-8601 durations for the control API's clock: PnW, or PnDTnHnMnS (seconds may have a fraction).
// Years and months have no fixed length, so they are refused rather than guessed.

const PATTERN =
  /^P(?:(\d{1,6})W|(?:(\d{1,6})D)?(?:T(?=\d)(?:(\d{1,7})H)?(?:(\d{1,9})M)?(?:(\d{1,10}(?:[.,]\d{1,3})?)S)?)?)$/;

/** The longest advance accepted: far beyond the 7-day lifespan, short of overflowing a Date. */
export const MAX_ADVANCE_MS = 3650 * 24 * 3600 * 1000;

/** Milliseconds of an ISO-8601 duration such as `PT1H` or `P7D`; an Error saying what is wrong otherwise. */
export function parseDuration(text: string): number {
  const match = PATTERN.exec(text);
  if (!match || text === "P" || text.endsWith("T")) {
    throw new Error(
      "duration must be an ISO-8601 duration in weeks, days, hours, minutes and seconds, such as PT1H, P7D or PT90S",
    );
  }
  const [, weeks, days, hours, minutes, seconds] = match;
  const ms =
    Number(weeks ?? 0) * 7 * 86_400_000 +
    Number(days ?? 0) * 86_400_000 +
    Number(hours ?? 0) * 3_600_000 +
    Number(minutes ?? 0) * 60_000 +
    Math.round(Number((seconds ?? "0").replace(",", ".")) * 1000);
  if (ms > MAX_ADVANCE_MS) throw new Error("duration must be at most 3650 days");
  return ms;
}
