// What JSON.parse may be given. Its memory grows with a text's values and nesting, not with its bytes
// alone: `[[[[…` costs some 40 bytes of heap a byte, `[{},{},…` some 20, so a 256 MiB HAR entry or a
// 64 MiB NDJSON line of them ran the process out of memory (a crash, not exit 2). A large text is
// measured first by a scan that keeps nothing; a small one cannot cost much and is parsed at once.

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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Throw JsonTooCostly when a JSON text (a string, or its UTF-8 bytes) is larger than MEASURE_ABOVE and
 * nests deeper than MAX_JSON_NESTING or holds more than MAX_JSON_VALUES values. The scan only counts:
 * text that is not JSON passes, and JSON.parse refuses it.
 */
export function assertParseable(text: string | Uint8Array): void {
  if (text.length <= MEASURE_ABOVE) return;
  const at: (i: number) => number =
    typeof text === "string" ? (i) => text.charCodeAt(i) : (i) => text[i] as number;
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      values++;
      if (++depth > MAX_JSON_NESTING)
        throw new JsonTooCostly(`nests more than ${MAX_JSON_NESTING} levels deep`);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
    else if (c === COMMA && ++values > MAX_JSON_VALUES)
      throw new JsonTooCostly(`holds more than ${MAX_JSON_VALUES.toLocaleString("en-US")} JSON values`);
  }
}
