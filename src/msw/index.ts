// idv-contract/msw: MSW request handlers that answer a base URL's requests from an in-process
// sandbox (`createSandbox()` of idv-contract/sandbox), for `setupServer(...)` in Node tests: the
// typed client on the global fetch talks to a stateful sandbox, and no port is opened.
import { http, type HttpHandler, RequestHandler } from "msw";

/** What the handlers need of a sandbox: its fetch and the origin it answers as (`createSandbox()`'s result). */
export interface FetchSandbox {
  fetch: (input: Request) => Promise<Response>;
  url: string;
}

export interface SandboxHandlersOptions {
  /**
   * The origin whose requests the sandbox answers (the client's `baseUrl`); the sandbox's own `url`
   * by default, and always as well (the URLs in its answers name it).
   */
  baseUrl?: string;
}

/** The origin of a URL, or a TypeError naming the option. */
function originOf(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`sandboxHandlers: ${what} must be an absolute http or https URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new TypeError(`sandboxHandlers: ${what} must be an http or https URL`);
  if (parsed.pathname !== "/" || parsed.search !== "")
    throw new TypeError(`sandboxHandlers: ${what} must be an origin alone (no path or query)`);
  return parsed.origin;
}

/**
 * Cancel the clone MSW keeps of a request (RequestHandler.cache: made before the resolver runs,
 * "so we can always read it for logging"). It is a tee of the body: every byte the sandbox reads
 * would be queued in it too, unread, as long as the request lives. In Node nothing reads it
 * (setupServer is quiet, and logs from a clone of its own); cancelled, it holds no byte, and the
 * caller's stream is cancelled once the sandbox has cancelled its side too.
 */
function releaseClone(request: Request): void {
  const cache = (RequestHandler as { cache?: WeakMap<Request, Request> }).cache;
  const body = cache?.get(request)?.body;
  if (!body || body.locked) return;
  body.cancel().catch(() => undefined);
}

/**
 * MSW handlers that answer every request to `baseUrl` (and to the sandbox's own url) from the
 * sandbox in this process, as its HTTP server would: `setupServer(...sandboxHandlers(sandbox))`.
 */
export function sandboxHandlers(sandbox: FetchSandbox, options: SandboxHandlersOptions = {}): HttpHandler[] {
  if (typeof sandbox?.fetch !== "function" || typeof sandbox.url !== "string")
    throw new TypeError("sandboxHandlers: give the sandbox createSandbox() made (its fetch and url)");
  const origins = new Set([originOf(sandbox.url, "the sandbox's url")]);
  if (options.baseUrl !== undefined) origins.add(originOf(options.baseUrl, "baseUrl"));
  // The request MSW hands over is the one the client sent (its signal too): the sandbox reads it as
  // its server would, within its limit and deadline.
  return [...origins].map((origin) =>
    http.all(`${origin}/*`, async ({ request }) => {
      releaseClone(request);
      try {
        return await sandbox.fetch(request);
      } catch {
        // The sandbox's fetch rejects only where fetch would (its signal aborted, its body's stream
        // failed or used): MSW's way to say so is a network error, where a rejection here would be
        // printed as a handler's failure and answered with a 500. Aborted, MSW has rejected the
        // caller's fetch with the signal's reason already.
        return Response.error();
      }
    }),
  );
}
