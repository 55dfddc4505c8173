// A JSON text measured before JSON.parse builds it. Parsing costs heap with a text's nesting and value
// count, not its bytes alone: `[[[[…` takes some 40 bytes of heap a byte, `[{},{},…` some 20. One pass
// that keeps nothing tells whether a text is within limits; text that is not JSON passes, and
// JSON.parse refuses it.

/** The byte (or UTF-16 unit) values of JSON's structural characters; in UTF-8 they never occur inside a multi-byte character. */
export const JSON_CHAR = {
  QUOTE: 0x22,
  BACKSLASH: 0x5c,
  COMMA: 0x2c,
  OPEN_ARRAY: 0x5b,
  OPEN_OBJECT: 0x7b,
  CLOSE_ARRAY: 0x5d,
  CLOSE_OBJECT: 0x7d,
} as const;

/** How deep a text may nest, and how many values (containers, members, elements) it may hold. */
export interface JsonLimits {
  maxDepth: number;
  maxValues: number;
}

/**
 * The first limit a JSON text (a string, or its UTF-8 bytes) goes past: `depth` or `values`; undefined
 * when it stays within both.
 */
export function exceedsJsonLimits(
  text: string | Uint8Array,
  limits: JsonLimits,
): "depth" | "values" | undefined {
  const { QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT } = JSON_CHAR;
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
      if (++depth > limits.maxDepth) return "depth";
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
    else if (c === COMMA && ++values > limits.maxValues) return "values";
  }
  return undefined;
}
