import type { OperationFacts } from "./facts.js";
import type { Signer } from "./signer.js";
import { SigningRequest, utf8 } from "./signing-request.js";

export interface AuthOptions {
  apiKey: string;
  secret: string;
  /** Computes Svc-Signature over the date and body bytes (a caller's signer also reads the request). */
  sign: RequestSigning;
  /** The Svc-Date value for a request being signed now. */
  date: () => string;
}

/** Signs one v4 request: its Svc-Date value, its exact body (bytes, or text sent as UTF-8), and the request. */
export type RequestSigning = (
  date: string,
  body: Uint8Array | string,
  request: Request,
) => string | Promise<string>;

/** A caller's signer, given a plain input it may keep, spread or serialise. */
export const signingWith =
  (signer: Signer): RequestSigning =>
  (date, body, request) =>
    // Plain values rather than getters over the request: building an object with accessors per request
    // kept the request alive through more garbage collections and cost more than reading the URL.
    // A string body becomes an array of the signer's own, which it may keep across an await.
    signer({
      date,
      body: typeof body === "string" ? utf8(body) : body,
      method: request.method,
      url: request.url,
    });

/** The Svc-Date clock: the caller's `now`, or the system clock formatted at most once per millisecond. */
export function svcDate(now?: () => Date): () => string {
  if (now) return () => now().toISOString();
  let ms = Number.NaN;
  let text = "";
  return () => {
    const at = Date.now();
    // Formatting costs more than reading the clock; requests within one millisecond share the text.
    if (at !== ms) text = new Date((ms = at)).toISOString();
    return text;
  };
}

/** The body bytes of a body-less request. */
export const EMPTY = new Uint8Array(0);

/** Set Svc-Date and Svc-Signature on a v4 request, over exactly this body. */
export function signRequest(
  request: Request,
  body: Uint8Array | string,
  options: AuthOptions,
): void | Promise<void> {
  const date = options.date();
  const signature = options.sign(date, body, request);
  // A synchronous signer (the default, or the caller's) keeps the whole request free of extra awaits.
  if (typeof signature === "string") return setSignature(request.headers, date, signature);
  return signature.then((value) => setSignature(request.headers, date, value));
}

function setSignature(headers: Headers, date: string, signature: string): void {
  headers.set("Svc-Date", date);
  headers.set("Svc-Signature", signature);
}

async function signReadBody(request: Request, options: AuthOptions): Promise<Request> {
  // A FormData body, or a Request from the caller's middleware: read it once and send those very bytes.
  const body = new Uint8Array(await request.arrayBuffer());
  const signed = new SigningRequest(request, { body });
  await signRequest(signed, body, options);
  return signed;
}

/** Refuse a method and path that are not an operation of the contract. */
export function operationError(method: string, schemaPath: string): Error {
  return new Error(`idv-contract: ${method} ${schemaPath} is not an operation of the contract`);
}

/**
 * Add one operation's credentials: v2 key and secret, or v4 key, date and signature over the body bytes.
 * Undefined when done on this very request; otherwise a promise of the request to send.
 */
export function authorize(
  request: Request,
  facts: OperationFacts,
  options: AuthOptions,
): undefined | Promise<Request> {
  if (facts.auth === "none") return undefined;
  const headers = request.headers;
  headers.set("Svc-API-Key", options.apiKey);
  if (facts.auth === "v2") {
    headers.set("Svc-Secret", options.secret);
    return undefined;
  }
  // v4: the secret only keys the signature and never travels, whatever headers the caller set.
  headers.delete("Svc-Secret");
  // The body the request was built with is the body it sends.
  const source = request.body ? SigningRequest.of(request)?.bodySource : EMPTY;
  if (source === undefined) return signReadBody(request, options);
  const signing = signRequest(request, source, options);
  return signing ? signing.then(() => request) : undefined;
}
