import createFetchClient, { type ClientOptions as FetchClientOptions } from "openapi-fetch";
import type { paths } from "../../generated/types.js";
import { authorize, EMPTY, operationError, signingWith, signRequest, svcDate } from "./auth.js";
import { withCodingsGuard } from "./content-codings.js";
import { factsOf } from "./facts.js";
import { type FileHelpers, fileHelpers } from "./files.js";
import { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
import { type CallScope, type Resign, sendFollowingRedirects } from "./redirects.js";
import { assertServerRuntime } from "./runtime.js";
import { hmacSigning, type SignatureEncoding, type Signer } from "./signer.js";
import { SigningRequest } from "./signing-request.js";
import type { StrictClient } from "./strict-methods.js";
import { createTransport, type Fetch } from "./transport.js";
import { bounded, settle } from "./settle.js";

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
  /** Per-attempt deadline for the whole response, headers and body, in ms (default 30000; 0 turns it off). */
  timeoutMs?: number;
  /** How far the deadline reaches into a streamed body (downloadStream): to its end (default) or the headers. */
  streamTimeout?: "whole" | "headers";
  /** Retries of GET requests on network errors, 429 and 5xx (default 2 retries); false turns them off. */
  retry?: Partial<RetryOptions> | false;
  /** The largest body a call reads whole (JSON, text, download, any error), decompressed (default 64 MiB). */
  maxResponseBytes?: number;
  /** "server" skips the browser check for server runtimes that define browser-like globals. */
  runtime?: "auto" | "server";
  /** The clock Svc-Date is read from (default: the system clock). */
  now?: () => Date;
}

type CallInit = { fetch?: unknown } & Record<string, unknown>;
type LooseMethod = (path: string, init?: CallInit) => unknown;
type LooseRequest = (method: string, path: string, init?: CallInit) => unknown;

/** An openapi-fetch client typed by the contract, with the file helpers. */
export type IdvClient = StrictClient & FileHelpers;

/**
 * Refuse a base URL fetch cannot use, here rather than at the first call: "127.0.0.1:4510" (no scheme)
 * or "localhost:4510" (which URL reads as the scheme "localhost:"). The value is not quoted: a base
 * URL may carry credentials.
 */
function assertBaseUrl(baseUrl: string): void {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.host === "")
    throw new TypeError(
      'createClient: options.baseUrl must be an absolute http or https URL, such as "https://idv.example.com" or "http://127.0.0.1:4010"',
    );
}

/** A client of the service: openapi-fetch typed by the contract, adding each operation's credentials. */
export function createClient(options: ClientOptions): IdvClient {
  assertServerRuntime(options?.runtime);
  for (const name of ["baseUrl", "apiKey", "secret"] as const) {
    const value = options?.[name];
    if (!value || typeof value !== "string") {
      throw new TypeError(`createClient: options.${name} must be a non-empty string`);
    }
  }
  assertBaseUrl(options.baseUrl);
  const {
    apiKey,
    secret,
    signer,
    signatureEncoding,
    timeoutMs = 30_000,
    streamTimeout,
    retry,
    maxResponseBytes = 2 ** 26,
    runtime: _runtime,
    now,
    // Node's fetch gets a dispatcher that refuses answers whose stacked codings would end the process.
    fetch = (input: Request, init?: RequestInit) => globalThis.fetch(input, withCodingsGuard(init)),
    ...fetchOptions
  } = options;
  const auth = {
    apiKey,
    secret,
    date: svcDate(now),
    sign: signer ? signingWith(signer) : hmacSigning(secret, signatureEncoding),
  };
  // A request sent again (a redirect's, a retry's) is signed again over what it sends; v2 ones keep key and secret.
  const resign: Resign = (request, body) =>
    request.headers.has("Svc-Signature") ? signRequest(request, body, auth) : undefined;
  const transport = createTransport({
    fetch,
    timeoutMs,
    resign,
    retry: { ...DEFAULT_RETRY, ...(retry === false ? { retries: 0 } : retry) },
    async renew(request) {
      const next = new Request(request);
      // Another attempt is another request: a v4 one gets a fresh date and signature (retried GETs have no body).
      await resign(next, EMPTY);
      return next;
    },
  });
  const client = createFetchClient<paths, "application/json">({
    ...fetchOptions,
    // fetch would follow a redirect to any host with the credentials; the client follows them itself.
    redirect: "manual",
    Request: SigningRequest,
    fetch: (request: Request) => transport(request, undefined, { where: request.method }),
  });
  // Credentials are added by the fetch each call is given, after every middleware, so that the v4 signature
  // covers the final body; that fetch knows the operation's facts without a middleware pass of its own.
  const loose = client as unknown as Record<string, LooseMethod>;
  // openapi-fetch's HTTP methods are its only upper-case members.
  for (const method of Object.keys(client).filter((key) => /^[A-Z]+$/.test(key))) {
    const base = (loose[method] as LooseMethod).bind(client);
    loose[method] = (path, init) => {
      const facts = factsOf(method, path);
      if (!facts) return Promise.reject(operationError(method, path));
      const call: CallScope = { where: `${method} ${path}` };
      // A call that brings its own fetch sends through it, without the client's timeout and retries.
      const own = init?.fetch as Fetch | undefined;
      const send = (request: Request, ext?: object) =>
        own ? sendFollowingRedirects(own, request, ext, call, resign) : transport(request, ext, call);
      const stream = init?.parseAs === "stream";
      const fetch: Fetch = (request, ext) => {
        const ready = authorize(request, facts, auth);
        const sent = ready ? ready.then((signed) => send(signed, ext)) : send(request, ext);
        // A hostile answer (endless, or a small gzip of gigabytes) must not fill the memory in time.
        return sent.then((response) => bounded(response, call, maxResponseBytes, stream));
      };
      // A caller's redirect: "error" is stricter and kept; anything else is the client's own following.
      const redirect = init?.redirect === "error" ? "error" : "manual";
      // Only "headers" frees a stream from the deadline: any other value keeps the safer default.
      const timedStream = streamTimeout !== "headers" && stream;
      return settle(call, () => base(path, { ...init, fetch, redirect }), timedStream);
    };
  }
  (client as unknown as { request: LooseRequest }).request = (method, path, init) => {
    const call = loose[method.toUpperCase()];
    return call ? call(path, init) : Promise.reject(operationError(method, path));
  };
  return Object.assign(client as StrictClient, fileHelpers(client));
}
