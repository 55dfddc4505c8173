import { createHash, timingSafeEqual } from "node:crypto";
import { type HeadersLike, readHeader } from "./headers.js";

/** Credentials the receiver accepts from the service, as configured in the developer dashboard. */
export type ReceiverCredentials =
  { scheme: "basic"; username: string; password: string } | { scheme: "bearer"; token: string };

/** Why a delivery's credentials were refused; never the credentials themselves. */
export type ReceiverAuthFailure = "missing" | "unsupported_scheme" | "malformed" | "mismatch";

/** The outcome of checkReceiverAuth. */
export type ReceiverAuthResult = { ok: true } | { ok: false; reason: ReceiverAuthFailure };

// Digests have one length whatever the input, so timingSafeEqual never throws on a length
// mismatch and the comparison takes the same time whether the lengths match or not.
const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

// RFC 7617: a user-id cannot contain a colon, so the first colon of Basic credentials ends it; with that
// rule, comparing "user:password" whole is comparing both parts.
const secretOf = (c: ReceiverCredentials) => (c.scheme === "basic" ? `${c.username}:${c.password}` : c.token);

/** Why a configured credential cannot be checked, or undefined when it can. */
function configurationError(c: ReceiverCredentials): string | undefined {
  const secret = secretOf(c);
  if (secret === "" || secret === ":") return "no empty token or password";
  if (c.scheme === "basic" && c.username.includes(":")) return 'no ":" in a Basic user name (RFC 7617)';
  // A lone surrogate would be hashed as U+FFFD, and any sender's U+FFFD would then match it.
  if (/\p{Cs}/u.test(secret)) return "no lone surrogate in a credential";
  return undefined;
}

// Invalid UTF-8 is refused rather than decoded to U+FFFD (which a password of U+FFFD would match), and a
// leading byte order mark is kept as a character rather than dropped.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Check the Authorization header of a delivery against the accepted Basic or Bearer credentials,
 * in constant time. Pass several credentials to rotate them without downtime. Basic credentials must be
 * UTF-8 and the user name ends at the first ":" (RFC 7617); a configured user name with ":" is refused.
 * Digest authentication needs a challenge round trip and is left to the HTTP server.
 */
export function checkReceiverAuth(
  headers: HeadersLike | null,
  accepted: ReceiverCredentials | readonly ReceiverCredentials[],
): ReceiverAuthResult {
  const list = (Array.isArray(accepted) ? accepted : [accepted]) as readonly ReceiverCredentials[];
  // The reason names the rule broken, never the credential.
  const wrong = list.length === 0 ? "at least one credential" : list.map(configurationError).find(Boolean);
  if (wrong) throw new TypeError(`checkReceiverAuth needs ${wrong}.`);

  const header = readHeader(headers, "authorization")?.trim();
  if (!header) return { ok: false, reason: "missing" };
  const space = header.indexOf(" ");
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? "" : header.slice(space + 1).trim();
  if (scheme !== "basic" && scheme !== "bearer") return { ok: false, reason: "unsupported_scheme" };
  const candidates = list.filter((c) => c.scheme === scheme);
  if (candidates.length === 0) return { ok: false, reason: "unsupported_scheme" };

  let presented = value;
  if (scheme === "basic") {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return { ok: false, reason: "malformed" };
    try {
      presented = utf8.decode(Buffer.from(value, "base64"));
    } catch {
      return { ok: false, reason: "malformed" };
    }
    if (!presented.includes(":")) return { ok: false, reason: "malformed" };
  } else if (value === "") {
    return { ok: false, reason: "malformed" };
  }

  const received = digest(presented);
  // Every candidate is compared, so the time taken does not tell which one matched.
  let matched = false;
  for (const c of candidates) matched = timingSafeEqual(received, digest(secretOf(c))) || matched;
  return matched ? { ok: true } : { ok: false, reason: "mismatch" };
}
