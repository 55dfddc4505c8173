// Reports say where and why, never what: the only recorded values they may show are those that cannot
// identify a person or unlock an account. Keys and path segments are recorded values too, so those that
// look like personal data (an e-mail used as a key, a phone number in a path) are masked.

import { pointerToken, safePointer, safeToken } from "../../src/redact.js";

export { pointerToken, safePointer, safeToken };

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
