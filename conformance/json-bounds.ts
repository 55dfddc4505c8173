// What JSON.parse may be given. Its memory grows with a text's values and nesting, not with its bytes
// alone, so a 256 MiB HAR entry or a 64 MiB NDJSON line of `[[[[…` ran the process out of memory (a
// crash, not exit 2). A large text is measured first (src/json-scan.ts); a small one cannot cost much
// and is parsed at once.
import { exceedsJsonLimits } from "../src/json-scan.js";

/** The deepest nesting parsed: the contract's documents nest under 10, a HAR entry a few more. */
export const MAX_JSON_NESTING = 1_000;

/** The most values (containers, members, elements) one text may hold: some 200 MB of heap at worst. */
export const MAX_JSON_VALUES = 4_000_000;

/** Texts up to this many bytes (or characters) are parsed unmeasured: they cost tens of MB at most. */
export const MEASURE_ABOVE = 1024 * 1024;

/** A JSON text too costly to parse; its message says why in the suite's words, never the text's. */
export class JsonTooCostly extends RangeError {
  override name = "JsonTooCostly";
}

/**
 * Throw JsonTooCostly when a JSON text (a string, or its UTF-8 bytes) is larger than MEASURE_ABOVE and
 * nests deeper than MAX_JSON_NESTING or holds more than MAX_JSON_VALUES values. The scan only counts:
 * text that is not JSON passes, and JSON.parse refuses it.
 */
export function assertParseable(text: string | Uint8Array): void {
  if (text.length <= MEASURE_ABOVE) return;
  const over = exceedsJsonLimits(text, { maxDepth: MAX_JSON_NESTING, maxValues: MAX_JSON_VALUES });
  if (over === "depth") throw new JsonTooCostly(`nests more than ${MAX_JSON_NESTING} levels deep`);
  if (over === "values")
    throw new JsonTooCostly(`holds more than ${MAX_JSON_VALUES.toLocaleString("en-US")} JSON values`);
}
