// Redirects are followed by the client, not by fetch: fetch keeps every header but Authorization and
// Cookie when a redirect names another host, so the service's own credentials would travel with it.
import { asConnectionError } from "./connection.js";
import { type ApiError, ApiRequestError } from "./errors.js";
import { SigningRequest } from "./signing-request.js";
import type { Fetch } from "./fetch.js";

/** One call of the client, as its errors name it and as its whole-request deadline reaches it. */
export interface CallScope {
  /** The method and path template, such as "POST /api/v4/pep_checks": never a value from the call. */
  readonly where: string;
  /** The status of the answer the call got, once it has one. */
  status?: number;
  /** The URL of the request last sent, whose host a connection error names. */
  url?: string;
  /**
   * Set when an answer arrives: stops its attempt's deadline once the body has been read. A function
   * bound to the timer alone: a closure made in the attempt kept each request alive into the old
   * generation (and a timer's type would name setTimeout in the package's types).
   */
  stop?: () => void;
  /** Settles the call with an error while its body is still being read. */
  fail?: (reason: unknown) => void;
}

/** Re-signs a request made for a redirect, over the body it will send (v4); v2 requests keep their headers. */
export type Resign = (request: Request, body: Uint8Array | string) => void | Promise<void>;

// The statuses fetch follows; a 3xx without a Location is an answer like any other.
const isRedirect = (status: number): boolean =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
const MAX_REDIRECTS = 20;
// Headers that describe a body, dropped when a redirect turns the request into a GET (as fetch does).
const BODY_HEADERS = ["Content-Type", "Content-Encoding", "Content-Language", "Content-Location"];

function refuse(call: CallScope, status: number, message: string): Error {
  const error: ApiError = { shape: "unknown", status, code: undefined, message, body: undefined };
  return new ApiRequestError(error, call.where);
}

/** The request a same-origin redirect asks for: re-signed, with the body repeated or dropped as fetch would. */
async function redirected(
  request: Request,
  status: number,
  target: URL,
  resign: Resign,
  call: CallScope,
): Promise<Request> {
  const toGet = status === 303 ? request.method !== "HEAD" : status <= 302 && request.method === "POST";
  const headers = new Headers(request.headers);
  let body: Uint8Array<ArrayBuffer> | string | undefined;
  if (toGet) {
    for (const name of BODY_HEADERS) headers.delete(name);
  } else if (request.body) {
    // The client's bytes are its own ArrayBuffer's (never shared memory).
    body = SigningRequest.of(request)?.bodySource as Uint8Array<ArrayBuffer> | string | undefined;
    if (body === undefined) throw refuse(call, status, "a streamed body cannot be sent again");
  }
  const next = new SigningRequest(target, {
    method: toGet ? "GET" : request.method,
    headers,
    body,
    redirect: "manual",
    signal: request.signal,
  });
  await resign(next, body ?? "");
  return next;
}

/** The error a request's fetch rejected with, a network failure as an IdvConnectionError naming its host. */
function sendError(error: unknown, request: Request, init: RequestInit, call: CallScope): unknown {
  // The caller's abort or the deadline's is their own error, whatever its type.
  if (request.signal.aborted || init.signal?.aborted) return error;
  return asConnectionError(error, request.url, call.where);
}

/**
 * Send with `redirect: "manual"` and follow redirects within the request's own origin, re-signing each
 * hop. A redirect to another origin (host, port or scheme) is refused with an ApiRequestError naming the
 * status and the other host, before anything is sent there.
 */
export function sendFollowingRedirects(
  fetch: Fetch,
  first: Request,
  init: RequestInit | undefined,
  call: CallScope,
  resign: Resign,
): Promise<Response> {
  // The client's transport already asks for "manual"; a caller's own fetch is asked here.
  const ext = init?.redirect === "manual" ? init : { ...init, redirect: "manual" as const };
  // Most answers are no redirect: they go back without another promise.
  call.url = first.url;
  return fetch(first, ext).then(
    (response) => {
      call.status = response.status;
      return isRedirect(response.status) || response.type === "opaqueredirect"
        ? follow(fetch, first, ext, call, resign, response)
        : response;
    },
    (error: unknown) => {
      throw sendError(error, first, ext, call);
    },
  );
}

/** Follow the redirect `answer` asks for, and any after it, within the request's origin. */
async function follow(
  fetch: Fetch,
  first: Request,
  ext: RequestInit,
  call: CallScope,
  resign: Resign,
  answer: Response,
): Promise<Response> {
  let request = first;
  let response = answer;
  for (let hops = 0; ; hops++) {
    if (hops > 0) {
      call.url = request.url;
      response = await fetch(request, ext).catch((error: unknown) => {
        throw sendError(error, request, ext, call);
      });
      call.status = response.status;
    }
    const { status } = response;
    if (response.type === "opaqueredirect") {
      throw refuse(call, status, 'the fetch hid the redirect (it must honour redirect: "manual")');
    }
    if (!isRedirect(status)) return response;
    const location = response.headers.get("Location");
    if (location === null) return response;
    // The body of a redirect is never read; cancelling frees the connection.
    response.body?.cancel().catch(() => {});
    if (first.redirect === "error") throw refuse(call, status, 'redirect refused (redirect: "error")');
    let target: URL;
    try {
      target = new URL(location, request.url);
    } catch {
      throw refuse(call, status, "Location is not a URL");
    }
    const origin = new URL(request.url).origin;
    if (target.origin !== origin) {
      throw refuse(
        call,
        status,
        // The other origin only: a Location's path or query may carry tokens or personal data.
        `redirect to another origin (${target.origin === "null" ? target.protocol : target.origin}) refused`,
      );
    }
    // A Request refuses a URL with a user or password in an error quoting the whole URL, password included.
    if (target.username || target.password) throw refuse(call, status, "Location carries a user or password");
    if (hops >= MAX_REDIRECTS) throw refuse(call, status, `more than ${MAX_REDIRECTS} redirects`);
    request = await redirected(request, status, target, resign, call);
  }
}
