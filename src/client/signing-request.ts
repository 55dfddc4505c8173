// The Request class the client hands to openapi-fetch. It keeps the exact body bytes it sends, so that
// the v4 signature is computed over them without reading the body stream back.

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
    // fetch sends a string body UTF-8 encoded (a lone surrogate as U+FFFD), exactly as TextEncoder does;
    // the Request keeps the string, which it handles more cheaply than bytes. Bytes are copied by the
    // Request as they are now.
    const bytes =
      typeof body === "string" ? encoder.encode(body) : body instanceof Uint8Array ? body : undefined;
    super(input, init);
    this.bodyBytes = bytes;
    this.hasCallerSignal = init?.signal != null;
  }
}
