// The default v4 signer. The interface document says only "Signature computation and the format of the
// date header: not shown." This is the contract's assumption (x-gap on SvcDate and SvcSignature):
// Svc-Signature = HMAC-SHA256(secret, Svc-Date value followed by the exact request body bytes).
import { hmacSha256 } from "./hmac-sha256.js";

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

const encoder = new TextEncoder();
// The two hex digits of each byte value: a digest's text is 32 of them joined.
const HEX = Array.from({ length: 256 }, (_, byte) => (byte < 16 ? "0" : "") + byte.toString(16));

/** Hex or base64 text of a digest. */
export function encodeDigest(digest: Uint8Array, encoding: SignatureEncoding): string {
  if (encoding === "base64") return btoa(String.fromCharCode(...digest));
  let text = "";
  for (const byte of digest) text += HEX[byte];
  return text;
}

/** Signs a v4 request's date and body bytes: the default signer, without an input object to build. */
export type SignDateBody = (date: string, body: Uint8Array) => string;

/** HMAC-SHA256 keyed by the secret over the date then the body, as hex or base64 text. */
export function hmacSigning(secret: string, encoding: SignatureEncoding = "hex"): SignDateBody {
  if (encoding !== "hex" && encoding !== "base64") {
    throw new TypeError(`signatureEncoding must be "hex" or "base64", not ${JSON.stringify(encoding)}`);
  }
  const hmac = hmacSha256(encoder.encode(secret));
  let lastDate = "";
  let dateBytes = new Uint8Array(0);
  return (date, body) => {
    // Requests within one millisecond share their Svc-Date: it is encoded once.
    if (date !== lastDate) dateBytes = encoder.encode((lastDate = date));
    return encodeDigest(hmac(dateBytes, body), encoding);
  };
}

/** The default signer: HMAC-SHA256 keyed by the secret over the date then the body, hex or base64. */
export function createHmacSigner(secret: string, encoding: SignatureEncoding = "hex"): Signer {
  const sign = hmacSigning(secret, encoding);
  return ({ date, body }) => sign(date, body);
}
