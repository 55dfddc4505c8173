// Reports say where and why, never what: the only recorded values they may show are those that cannot
// identify a person or unlock an account. Keys and path segments are recorded values too, so those that
// look like personal data (an e-mail used as a key, a phone number in a path) are masked.

import { pointerToken, REDACTED, safePointer, safeToken } from "../src/redact.js";

export { pointerToken, safePointer, safeToken };

/** Any of safeToken's number shapes anywhere in a path: then each segment is looked at. */
const LOOKS_SENSITIVE = /\d[\d().+-]{5,}\d|\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}/;

function hasLongSegment(path: string): boolean {
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 47) {
      if (i - start > 64) return true;
      start = i + 1;
    }
  }
  return false;
}

/** A request path with every suspicious segment masked (the query string is never kept). */
export function safePath(path: string): string {
  // Most paths are made of ids and words: nothing to mask, nothing to allocate.
  if (/^[A-Za-z0-9_/.-]*$/.test(path) && !LOOKS_SENSITIVE.test(path) && !hasLongSegment(path)) return path;
  return path
    .split("/")
    .map((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return REDACTED;
      }
      return safeToken(decoded) === REDACTED ? REDACTED : segment;
    })
    .join("/");
}

/** The media type of a Content-Type value, lower-cased, without parameters. */
export function mediaTypeEssence(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const known = essences.get(value);
  if (known !== undefined || essences.has(value)) return known;
  const essence = readEssence(value);
  // Traffic uses a handful of Content-Type values; the bound keeps odd traffic from growing the memo.
  if (essences.size < 256) essences.set(value, essence);
  return essence;
}

const essences = new Map<string, string | undefined>();

function readEssence(value: string): string | undefined {
  const essence = value.split(";", 1)[0]?.trim().toLowerCase();
  // A media type is `type/subtype` of token characters; anything else is not shown back.
  return essence && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+*-]+$/.test(essence) ? essence : undefined;
}
