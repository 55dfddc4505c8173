// The default v4 signer. The interface document says only "Signature computation and the format of the
// date header: not shown." This is the contract's assumption (x-gap on SvcDate and SvcSignature):
// Svc-Signature = HMAC-SHA256(secret, Svc-Date value followed by the exact request body bytes).
// The HMAC is the platform's (node:crypto, which Node.js, Deno and Bun provide): credentials are signed
// by audited native code, never by a hand-written hash.
import { createHmac, createSecretKey } from "node:crypto";

/** What a v4 signature is computed over. */
export interface SignInput {
  /** The Svc-Date value sent with the request. */
  date: string;
  /** The exact body bytes sent; empty for a body-less request. */
  body: Uint8Array;
  method: string;
  url: string;
}

/** Computes the Svc-Signature value of a v4 request. */
export type Signer = (input: SignInput) => string | Promise<string>;

export type SignatureEncoding = "hex" | "base64";

/** Signs a v4 request's date and body (bytes, or text sent as UTF-8): the default signer, without an input object. */
type SignDateBody = (date: string, body: Uint8Array | string) => string;

/** HMAC-SHA256 keyed by the secret over the date then the body, as hex or base64 text. */
export function hmacSigning(secret: string, encoding: SignatureEncoding = "hex"): SignDateBody {
  if (encoding !== "hex" && encoding !== "base64") {
    throw new TypeError(`signatureEncoding must be "hex" or "base64", not ${JSON.stringify(encoding)}`);
  }
  // The key is imported once per client, not once per request.
  const key = createSecretKey(secret, "utf8");
  // A string body is hashed as UTF-8, as fetch sends it (a lone surrogate becomes U+FFFD in both).
  // A string body joins the date in one update: one call into native code fewer per request.
  return (date, body) =>
    (typeof body === "string"
      ? createHmac("sha256", key).update(date + body)
      : createHmac("sha256", key).update(date).update(body)
    ).digest(encoding);
}

/** The default signer: HMAC-SHA256 keyed by the secret over the date then the body, hex or base64. */
export function createHmacSigner(secret: string, encoding: SignatureEncoding = "hex"): Signer {
  const sign = hmacSigning(secret, encoding);
  return ({ date, body }) => sign(date, body);
}
