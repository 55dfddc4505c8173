// Real calendar days in the layouts the contract uses (ISO `format: date`, and the document's
// DD/MM/YYYY), leap days and month ends often; and the impossible days a broken value sends.
import fc from "fast-check";

/** A layout of a calendar day. */
export type DateLayout = "YYYY-MM-DD" | "DD/MM/YYYY";

/** The first and last days generated: people born, documents expiring, around the present. */
const FIRST = Date.UTC(1900, 0, 1);
const LAST = Date.UTC(2099, 11, 31);

/** Days a calendar gets wrong: leap days of leap years (2000 is one, a century divisible by 400), year and month ends. */
const TRICKY: [number, number, number][] = [
  [2000, 2, 29],
  [2024, 2, 29],
  [1996, 2, 29],
  [1999, 12, 31],
  [2023, 4, 30],
  [1985, 1, 31],
  [2001, 2, 28],
];

/** Days no calendar has: the 31st of a 30-day month, 29 February of a common year (1900 too, a century). */
export const IMPOSSIBLE: [number, number, number][] = [
  [1985, 4, 31],
  [2001, 2, 29],
  [1900, 2, 29],
  [1990, 6, 31],
  [2023, 2, 30],
];

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** A day (year, month 1–12, day) written in a layout. */
export function writeDay([year, month, day]: [number, number, number], layout: DateLayout): string {
  return layout === "YYYY-MM-DD"
    ? `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`
    : `${pad(day, 2)}/${pad(month, 2)}/${pad(year, 4)}`;
}

/** A real day: any between 1900 and 2099, or one of the days calendars get wrong. */
export const dayArbitrary: fc.Arbitrary<[number, number, number]> = fc.oneof(
  {
    arbitrary: fc
      .integer({ min: FIRST / 86_400_000, max: LAST / 86_400_000 })
      .map((n): [number, number, number] => {
        const d = new Date(n * 86_400_000);
        return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
      }),
    weight: 3,
  },
  { arbitrary: fc.constantFrom(...TRICKY), weight: 1 },
);

/** A real day written in a layout. */
export function dateArbitrary(layout: DateLayout): fc.Arbitrary<string> {
  return dayArbitrary.map((day) => writeDay(day, layout));
}

/** A date-time with a time zone (`Z` or an offset), as RFC 3339 writes it. */
export const dateTimeArbitrary: fc.Arbitrary<string> = fc
  .tuple(
    dayArbitrary,
    fc.integer({ min: 0, max: 86_399 }),
    fc.constantFrom("Z", "+00:00", "+12:00", "-05:30", "+13:45"),
  )
  .map(([day, seconds, zone]) => {
    const time = `${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}`;
    return `${writeDay(day, "YYYY-MM-DD")}T${time}${zone}`;
  });
