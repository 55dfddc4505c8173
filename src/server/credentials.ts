// The credentials a server accepts (the sandbox always, the mock when given them), checked as the
// service does: v2 sends the key and the secret, v4 sends the key, a date and a signature. The signature is the contract's stated assumption
// (x-gap on SvcSignature): HMAC-SHA256 keyed by the secret over the Svc-Date value followed by the
// exact body bytes, hex (or base64). node:crypto computes it; comparisons take constant time.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type Rejection, rejection } from "./error-body.js";
import type { Operation } from "./operations.js";

/** The API key and secret a server accepts. */
export interface Credentials {
  apiKey: string;
  secret: string;
}

/** Fresh credentials for a sandbox started without --key and --secret. */
export function generateCredentials(): Credentials {
  return {
    apiKey: `sbx_key_${randomBytes(12).toString("hex")}`,
    secret: `sbx_secret_${randomBytes(24).toString("hex")}`,
  };
}

const digest = (value: string | Buffer): Buffer => createHash("sha256").update(value).digest();

/** The digests of a server's credentials, made once per Credentials (and again should one change). */
const accepted = new WeakMap<
  Credentials,
  { apiKey: string; secret: string; key: Buffer; secretDigest: Buffer }
>();

function digestsOf(credentials: Credentials): { key: Buffer; secretDigest: Buffer } {
  let known = accepted.get(credentials);
  if (!known || known.apiKey !== credentials.apiKey || known.secret !== credentials.secret) {
    const { apiKey, secret } = credentials;
    known = { apiKey, secret, key: digest(apiKey), secretDigest: digest(secret) };
    accepted.set(credentials, known);
  }
  return known;
}

/**
 * Equal in constant time whatever the lengths (both sides are hashed to one length first); the
 * accepted side's digest is made once (digestsOf), so a request costs one hash per value it gives.
 */
function same(given: string, acceptedDigest: Buffer): boolean {
  return timingSafeEqual(digest(given), acceptedDigest);
}

/** Equal in constant time; a length that differs is public (every signature of a kind has one length). */
function sameText(given: string, expected: Buffer): boolean {
  const bytes = Buffer.from(given, "latin1");
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

/** Why a request's credentials were refused; the values are never part of it. */
export type CredentialProblem = "key" | "secret" | "signature";

/** Check a v2 request's Svc-API-Key and Svc-Secret. */
export function checkV2(
  credentials: Credentials,
  apiKey: string,
  secret: string,
): CredentialProblem | undefined {
  // Both compared every time: which one failed is not revealed by timing.
  const { key, secretDigest } = digestsOf(credentials);
  const keyOk = same(apiKey, key);
  const secretOk = same(secret, secretDigest);
  return !keyOk ? "key" : !secretOk ? "secret" : undefined;
}

/** The v4 signature of a date and body, hex and base64. */
export function v4Signatures(
  secret: string,
  date: string,
  body: Uint8Array,
): { hex: string; base64: string } {
  const mac = createHmac("sha256", secret).update(date, "utf8").update(body).digest();
  return { hex: mac.toString("hex"), base64: mac.toString("base64") };
}

/** Check a v4 request's Svc-API-Key and Svc-Signature over its Svc-Date and exact body. */
export function checkV4(
  credentials: Credentials,
  apiKey: string,
  date: string,
  signature: string,
  body: Uint8Array,
): CredentialProblem | undefined {
  const keyOk = same(apiKey, digestsOf(credentials).key);
  const expected = v4Signatures(credentials.secret, date, body);
  // Hex is compared case-insensitively, as hex digits are; base64 is exact.
  const signatureOk =
    signature.length === expected.hex.length
      ? sameText(signature.toLowerCase(), Buffer.from(expected.hex, "latin1"))
      : sameText(signature, Buffer.from(expected.base64, "latin1"));
  return !keyOk ? "key" : !signatureOk ? "signature" : undefined;
}

/**
 * The service's 401 for a request whose credentials are wrong (in its operation's error shape, naming no
 * value), or undefined when they are right. Missing credentials are refused earlier, by checkHeaders.
 */
export function credentialRefusal(
  credentials: Credentials,
  op: Operation,
  headers: Record<string, string | undefined>,
  body: Uint8Array,
): Rejection | undefined {
  const message = credentialMessage(credentials, op, headers, body);
  if (message === undefined) return undefined;
  return rejection(op.shape, 401, op.shape === "A" ? "AUTHENTICATION" : "AUTH_FAILED", message, {});
}

function credentialMessage(
  credentials: Credentials,
  op: Operation,
  headers: Record<string, string | undefined>,
  body: Uint8Array,
): string | undefined {
  const key = headers["svc-api-key"] ?? "";
  if (op.securityHeaders.includes("Svc-Secret")) {
    const problem = checkV2(credentials, key, headers["svc-secret"] ?? "");
    return problem ? "Authentication failed: the API key or secret is wrong." : undefined;
  }
  if (op.securityHeaders.includes("Svc-Signature")) {
    const problem = checkV4(
      credentials,
      key,
      headers["svc-date"] ?? "",
      headers["svc-signature"] ?? "",
      body,
    );
    if (problem === "key") return "Authentication failed: the API key is wrong.";
    if (problem === "signature")
      return "Authentication failed: Svc-Signature is not HMAC-SHA256 of Svc-Date followed by the exact body.";
  }
  return undefined;
}
