// The Request class the client hands to openapi-fetch. It keeps the exact body bytes it was built with,
// so that the v4 signature is computed over them without reading the body stream back.

const encoder = new TextEncoder();

/** A Request that remembers its body bytes. */
export class SigningRequest extends Request {
  readonly #brand = true;
  /** The body bytes, when the body was a string or bytes; undefined for FormData or no body. */
  readonly bodyBytes: Uint8Array | undefined;
  /** Whether the caller passed an abort signal of its own. */
  readonly hasCallerSignal: boolean;

  // openapi-fetch checks a middleware's answer with `instanceof` its Request class: any Request must pass,
  // or the caller's own middleware could not return a plain one.
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof Request;
  }

  /** The request as a SigningRequest, or undefined when it is a plain Request. */
  static of(request: Request): SigningRequest | undefined {
    return #brand in request ? (request as SigningRequest) : undefined;
  }

  constructor(input: RequestInfo | URL, init?: RequestInit) {
    const body = init?.body;
    // Bytes, not a string: the Request copies them, so the bytes kept here are the bytes it sends.
    const bytes =
      typeof body === "string" ? encoder.encode(body) : body instanceof Uint8Array ? body : undefined;
    super(input, bytes ? { ...init, body: bytes } : init);
    this.bodyBytes = bytes;
    this.hasCallerSignal = init?.signal != null;
  }
}
