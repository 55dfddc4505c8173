// The default v4 signer. The interface document says only "Signature computation and the format of the
// date header: not shown." This is the contract's assumption (x-gap on SvcDate and SvcSignature):
// Svc-Signature = HMAC-SHA256(secret, Svc-Date value followed by the exact request body bytes).

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

/** Hex or base64 text of a digest. */
export function encodeDigest(digest: ArrayBuffer, encoding: SignatureEncoding): string {
  const bytes = new Uint8Array(digest);
  let out = "";
  if (encoding === "hex") {
    for (const b of bytes) out += b.toString(16).padStart(2, "0");
    return out;
  }
  for (const b of bytes) out += String.fromCharCode(b);
  return btoa(out);
}

type NodeCrypto = {
  createSecretKey(key: Uint8Array): object;
  createHmac(
    algorithm: string,
    key: object,
  ): {
    update(data: string | Uint8Array): {
      update(data: Uint8Array): { digest(encoding: SignatureEncoding): string };
    };
  };
};

// node:crypto's HMAC is synchronous and several times cheaper per request than WebCrypto's; it is looked
// up at run time (never imported), so the package still bundles for runtimes that only have WebCrypto.
const nodeCrypto = (): NodeCrypto | undefined =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    "node:crypto",
  ) as NodeCrypto | undefined;

/** The default signer: HMAC-SHA256 keyed by the secret over the date then the body (node:crypto or WebCrypto). */
export function createHmacSigner(
  secret: string,
  encoding: SignatureEncoding = "hex",
  engine: "auto" | "webcrypto" = "auto",
): Signer {
  if (encoding !== "hex" && encoding !== "base64") {
    throw new TypeError(`signatureEncoding must be "hex" or "base64", not ${JSON.stringify(encoding)}`);
  }
  const node = engine === "auto" ? nodeCrypto() : undefined;
  if (node) {
    // A KeyObject made once saves re-reading the secret on every request.
    const key = node.createSecretKey(encoder.encode(secret));
    return ({ date, body }) => node.createHmac("sha256", key).update(date).update(body).digest(encoding);
  }
  // Imported once per signer: importKey costs more than a signature.
  let key: Promise<CryptoKey> | undefined;
  return async ({ date, body }) => {
    key ??= crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const dateBytes = encoder.encode(date);
    const message = new Uint8Array(dateBytes.length + body.length);
    message.set(dateBytes);
    message.set(body, dateBytes.length);
    return encodeDigest(await crypto.subtle.sign("HMAC", await key, message), encoding);
  };
}
