// The Request class the client hands to openapi-fetch. It keeps the body it was given, so that the v4
// signature is computed over the bytes it sends without reading the body stream back.

const encoder = new TextEncoder();

/** A Request that remembers its body as given. */
export class SigningRequest extends Request {
  readonly #brand = true;
  /** The body, when it was a string or bytes; undefined for FormData or no body. */
  readonly bodySource: string | Uint8Array | undefined;
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
    super(input, init);
    const body = init?.body;
    // The Request copies bytes as they are when it is made, and they are kept here by reference: the
    // client only passes bytes it made itself and never changes.
    this.bodySource = typeof body === "string" || body instanceof Uint8Array ? body : undefined;
    this.hasCallerSignal = init?.signal != null;
  }
}

/** The UTF-8 bytes of a string, as a new array (as fetch sends a string body: a lone surrogate as U+FFFD). */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);
