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

const secretOf = (c: ReceiverCredentials) => (c.scheme === "basic" ? `${c.username}:${c.password}` : c.token);

/**
 * Check the Authorization header of a delivery against the accepted Basic or Bearer credentials,
 * in constant time. Pass several credentials to rotate them without downtime. Digest
 * authentication needs a challenge round trip and is left to the HTTP server.
 */
export function checkReceiverAuth(
  headers: HeadersLike | null,
  accepted: ReceiverCredentials | readonly ReceiverCredentials[],
): ReceiverAuthResult {
  const list = (Array.isArray(accepted) ? accepted : [accepted]) as readonly ReceiverCredentials[];
  if (list.length === 0 || list.some((c) => secretOf(c) === "" || secretOf(c) === ":"))
    throw new TypeError("checkReceiverAuth needs at least one credential, and no empty token or password.");

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
    presented = Buffer.from(value, "base64").toString("utf8");
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
