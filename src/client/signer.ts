// The default v4 signer. The interface document says only "Signature computation and the format of the
// date header: not shown." This is the contract's assumption (x-gap on SvcDate and SvcSignature):
// Svc-Signature = HMAC-SHA256(secret, Svc-Date value followed by the exact request body bytes).
import { hmacSha256 } from "./hmac-sha256.js";
import { utf8 } from "./signing-request.js";

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

// Character codes of the hex digits, and the codes of one digest's text, reused: one String.fromCharCode
// call then makes the text as a single flat string (the header check reads every character).
const HEX = [..."0123456789abcdef"].map((digit) => digit.charCodeAt(0));
const codes: number[] = [];

/** Hex or base64 text of a digest. */
export function encodeDigest(digest: Uint8Array, encoding: SignatureEncoding): string {
  if (encoding === "base64") return btoa(String.fromCharCode(...digest));
  codes.length = digest.length * 2;
  for (let i = 0; i < digest.length; i++) {
    const byte = digest[i] as number;
    codes[i * 2] = HEX[byte >> 4] as number;
    codes[i * 2 + 1] = HEX[byte & 15] as number;
  }
  return String.fromCharCode(...codes);
}

/** Signs a v4 request's date and body (bytes, or text sent as UTF-8): the default signer, without an input object. */
type SignDateBody = (date: string, body: Uint8Array | string) => string;

/** HMAC-SHA256 keyed by the secret over the date then the body, as hex or base64 text. */
export function hmacSigning(secret: string, encoding: SignatureEncoding = "hex"): SignDateBody {
  if (encoding !== "hex" && encoding !== "base64") {
    throw new TypeError(`signatureEncoding must be "hex" or "base64", not ${JSON.stringify(encoding)}`);
  }
  const hmac = hmacSha256(utf8(secret));
  let lastDate = "";
  let dateBytes: Uint8Array = new Uint8Array(0);
  return (date, body) => {
    // Requests within one millisecond share their Svc-Date: it is encoded once.
    if (date !== lastDate) dateBytes = utf8((lastDate = date));
    return encodeDigest(hmac(dateBytes, body), encoding);
  };
}

/** The default signer: HMAC-SHA256 keyed by the secret over the date then the body, hex or base64. */
export function createHmacSigner(secret: string, encoding: SignatureEncoding = "hex"): Signer {
  const sign = hmacSigning(secret, encoding);
  return ({ date, body }) => sign(date, body);
}
