// Errors and reports say where and why, never what. Keys and path segments are data too: those that
// look like personal data (an e-mail used as a key, a name or a phone number) are masked.

import { escapeToken, unescapeToken } from "./contract/json-pointer.js";

const SENSITIVE_TOKEN = [
  /@/, // e-mail addresses
  /\d[\d\s().+-]{5,}\d/, // phone, document and card numbers
  /^\d{1,3}(\.\d{1,3}){3}$/, // IPv4
  /^[0-9a-f]*:[0-9a-f:]+$/i, // IPv6
  /\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}/, // dates
  /\s/, // free text (names, addresses) never makes a key or segment of this API
];

/** The text shown in place of a masked value. */
export const REDACTED = "[redacted]";

/** A key or path segment, masked when it looks like personal data. */
export function safeToken(token: string): string {
  if (token.length > 64) return REDACTED;
  for (const pattern of SENSITIVE_TOKEN) if (pattern.test(token)) return REDACTED;
  return token;
}

/** A JSON pointer token: `~` and `/` escaped, masked when it looks like personal data. */
export function pointerToken(token: string | number): string {
  if (typeof token === "number") return String(token);
  return escapeToken(safeToken(token));
}

/** A JSON pointer with every token that looks like personal data masked. */
export function safePointer(pointer: string): string {
  if (pointer === "") return pointer;
  return pointer
    .split("/")
    .map((token, i) => (i === 0 ? token : pointerToken(unescapeToken(token))))
    .join("/");
}
