// What JSON.parse may be given from a recording. Its heap grows with a text's values and nesting, not
// its bytes alone, so a large entry, line or body is measured first (src/json-scan.ts) and refused as
// unusable input (exit 2) rather than left to exhaust memory; a small one cannot cost much and is
// parsed at once.
import { exceedsJsonLimits } from "../../src/json-scan.js";

/** The deepest nesting parsed: the contract's documents nest under 10, a HAR entry a few more. */
export const MAX_RECORDING_NESTING = 1_000;

/** The most values (containers, members, elements) one text may hold: some 200 MB of heap at worst. */
export const MAX_RECORDING_VALUES = 4_000_000;

/** Texts up to this many bytes (or characters) are parsed unmeasured: they cost tens of MB at most. */
export const MEASURE_ABOVE = 1024 * 1024;

/** A JSON text too costly to parse; its message says why in the suite's words, never the text's. */
export class JsonTooCostly extends RangeError {
  override name = "JsonTooCostly";
}

/**
 * Throw JsonTooCostly when a JSON text (a string, or its UTF-8 bytes) is larger than MEASURE_ABOVE
 * and nests deeper than MAX_RECORDING_NESTING or holds more than MAX_RECORDING_VALUES values. The
 * scan only counts: text that is not JSON passes, and JSON.parse refuses it.
 */
export function assertParseable(text: string | Uint8Array): void {
  if (text.length <= MEASURE_ABOVE) return;
  const over = exceedsJsonLimits(text, { maxDepth: MAX_RECORDING_NESTING, maxValues: MAX_RECORDING_VALUES });
  if (over === "depth") throw new JsonTooCostly(`nests more than ${MAX_RECORDING_NESTING} levels deep`);
  if (over === "values")
    throw new JsonTooCostly(`holds more than ${MAX_RECORDING_VALUES.toLocaleString("en-US")} JSON values`);
}
