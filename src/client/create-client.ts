import createFetchClient, { type ClientOptions as FetchClientOptions } from "openapi-fetch";
import type { paths } from "../../generated/types.js";
import { authMiddleware, authorize, operationError, signRequest, svcDate } from "./auth.js";
import { factsOf, type OperationFacts } from "./facts.js";
import { type FileHelpers, fileHelpers } from "./files.js";
import { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
import { assertServerRuntime } from "./runtime.js";
import { createHmacSigner, type SignatureEncoding, type Signer } from "./signer.js";
import { SigningRequest } from "./signing-request.js";
import type { StrictClient } from "./strict-methods.js";
import { createTransport, type Fetch } from "./transport.js";

export interface ClientOptions extends Omit<FetchClientOptions, "baseUrl" | "fetch"> {
  /** The service's base URL, such as https://idv.example.com. */
  baseUrl: string;
  /** Sent as Svc-API-Key by every operation. */
  apiKey: string;
  /** Sent as Svc-Secret by v2 operations; keys the v4 signature and is never sent to v4 operations. */
  secret: string;
  /** The fetch to send with (default: globalThis.fetch). */
  fetch?: Fetch;
  /** Computes Svc-Signature for v4 operations (default: HMAC-SHA256 over Svc-Date + body, see docs/client.md). */
  signer?: Signer;
  /** Encoding of the default signer's digest (default "hex"). */
  signatureEncoding?: SignatureEncoding;
  /** Per-attempt timeout until the response headers arrive, in ms (default 30000; 0 turns it off). */
  timeoutMs?: number;
  /** Retries of GET requests on network errors, 429 and 5xx (default 2 retries); false turns them off. */
  retry?: Partial<RetryOptions> | false;
  /** "server" skips the browser check for server runtimes that define browser-like globals. */
  runtime?: "auto" | "server";
  /** The clock Svc-Date is read from (default: the system clock). */
  now?: () => Date;
}

type CallInit = { fetch?: unknown; middleware?: unknown[] } & Record<string, unknown>;
type LooseMethod = (path: string, init?: CallInit) => unknown;

/** An openapi-fetch client typed by the contract, with the file helpers. */
export type IdvClient = StrictClient & FileHelpers;

function required(options: ClientOptions, name: "baseUrl" | "apiKey" | "secret"): void {
  const value = options?.[name];
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`createClient: options.${name} must be a non-empty string`);
  }
}

/** A client of the service: openapi-fetch typed by the contract, adding each operation's credentials. */
export function createClient(options: ClientOptions): IdvClient {
  assertServerRuntime(options?.runtime);
  for (const name of ["baseUrl", "apiKey", "secret"] as const) required(options, name);
  const {
    apiKey,
    secret,
    signer = createHmacSigner(secret, options.signatureEncoding),
    signatureEncoding: _encoding,
    timeoutMs = 30_000,
    retry,
    runtime: _runtime,
    now,
    fetch = (input: Request, init?: RequestInit) => globalThis.fetch(input, init),
    ...fetchOptions
  } = options;
  const auth = { apiKey, secret, signer, date: svcDate(now) };
  const transport = createTransport({
    fetch,
    timeoutMs,
    retry: retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...retry },
    async renew(request) {
      const next = new Request(request);
      // Another attempt is another request: a v4 one gets a fresh date and signature (retried GETs have no body).
      if (next.headers.has("Svc-Signature")) await signRequest(next, new Uint8Array(0), auth);
      return next;
    },
  });
  const client = createFetchClient<paths, "application/json">({
    ...fetchOptions,
    Request: SigningRequest,
    fetch: transport,
  });
  // Credentials are added by the fetch each call is given, after every middleware, so the signature covers
  // the final body; one fetch per operation knows its facts without a middleware pass of its own.
  const fetches = new Map<OperationFacts, Fetch>();
  const fetchFor = (facts: OperationFacts): Fetch => {
    let send = fetches.get(facts);
    if (!send) {
      send = (request, init) => {
        const ready = authorize(request, facts, auth);
        return ready ? ready.then((signed) => transport(signed, init)) : transport(request, init);
      };
      fetches.set(facts, send);
    }
    return send;
  };
  // A call that brings its own fetch gets the credentials from a middleware instead, after its own.
  const middleware = [authMiddleware(auth)];
  const loose = client as unknown as Record<string, LooseMethod>;
  const call =
    (method: string, base: LooseMethod): LooseMethod =>
    (path, init) => {
      const facts = factsOf(method, path);
      if (!facts) return Promise.reject(operationError(method, path));
      if (init?.fetch) {
        return base(path, { ...init, middleware: [...(init.middleware ?? []), ...middleware] });
      }
      return base(path, { ...init, fetch: fetchFor(facts) });
    };
  for (const method of ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]) {
    loose[method] = call(method, (loose[method] as LooseMethod).bind(client));
  }
  const request = client.request.bind(client) as (method: string, path: string, init?: CallInit) => unknown;
  (client as unknown as { request: typeof request }).request = (method, path, init) =>
    call(method.toUpperCase(), (p, i) => request(method, p, i))(path, init);
  return Object.assign(client as StrictClient, fileHelpers(client));
}
