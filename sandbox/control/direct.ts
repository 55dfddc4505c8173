// The control helpers' calls in a sandbox of this process (createSandbox's `control`): each goes
// straight to the sandbox's answers, through the same routes, checks and handlers as its fetch, but
// without a Request and a Response (and their bodies' streams) each way. What crosses is what a
// wire carries: the URL as openapi-fetch makes it, the body as its JSON text, and the answer in the
// wire form the fetch adapter's Response has (wireOf), read back as openapi-fetch reads it, so the
// caller gets a copy and the same errors. A middleware on `control.api` sends them through it.
import { createFinalURL, createQuerySerializer, defaultPathSerializer } from "openapi-fetch";
import type { BodyRead } from "../../src/server/body.js";
import {
  answerLocally,
  failureAnswer,
  type FetchAdapterOptions,
  type PipelineApp,
  type WireAnswer,
  wireOf,
} from "../../src/server/fetch-adapter.js";
import type { ControlApi, ControlCalls, ControlOutcome } from "./client.js";

/** What the helpers pass to a call: openapi-fetch's init, as far as they use it. */
interface CallInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
}

const querySerializer = createQuerySerializer();

/** The body as readBody gives it: whole, or too large for the route's limit. */
const bodyOf =
  (bytes: Buffer) =>
  async (maxBytes: number): Promise<BodyRead> =>
    bytes.length > maxBytes ? { ok: false, tooLarge: true, size: bytes.length } : { ok: true, bytes };

// Bytes read as text the way a Response reads them: a leading BOM is dropped.
const utf8 = new TextDecoder();

/**
 * What openapi-fetch makes of an answer's wire form: no body (a 204, a Content-Length of 0 unless
 * chunked) is undefined; else a 2xx is parsed as JSON (its SyntaxError a rejection) and an error is
 * its JSON, or its text if not JSON.
 */
function outcomeOf({ status, headers, body }: WireAnswer): ControlOutcome<unknown> {
  // Over fetch the Response's statusText is empty, as the adapter sets none.
  const response = { ok: status >= 200 && status < 300, status, statusText: "" };
  if (
    status === 204 ||
    (headers.get("content-length") === "0" && !headers.get("transfer-encoding")?.includes("chunked"))
  )
    return response.ok ? { data: undefined, response } : { error: undefined, response };
  const raw = body === null ? "" : typeof body === "string" ? body : utf8.decode(body);
  if (response.ok) return { data: JSON.parse(raw) as unknown, response };
  try {
    return { error: JSON.parse(raw) as unknown, response };
  } catch {
    return { error: raw, response };
  }
}

/** The control calls answered by `app` in this process, as its fetch at `baseUrl` would answer them. */
export function directControlCalls(
  app: PipelineApp,
  baseUrl: string,
  options: FetchAdapterOptions,
): ControlCalls {
  const call =
    (method: string) =>
    async (template: string, init: CallInit = {}) => {
      // openapi-fetch writes the body before the URL: a throw of either rejects as over fetch.
      const body = init.body === undefined ? undefined : JSON.stringify(init.body);
      const url = new URL(
        createFinalURL(template, {
          baseUrl,
          params: init.params ?? {},
          querySerializer,
          pathSerializer: defaultPathSerializer,
        }),
      );
      const headers: Record<string, string | undefined> = Object.create(null);
      if (body !== undefined) headers["content-type"] = "application/json";
      const { answer, pathname } = await answerLocally(
        app,
        {
          method,
          pathAndQuery: url.pathname + url.search,
          headers,
          readBody: bodyOf(Buffer.from(body ?? "")),
        },
        options,
      );
      let wire: WireAnswer;
      try {
        wire = wireOf(method, answer);
      } catch (error) {
        // An answer with no wire form is the app's failure, as the fetch adapter answers it.
        wire = wireOf(method, failureAnswer(options, error, pathname));
      }
      return outcomeOf(wire);
    };
  // Typed as openapi-fetch's methods, whose results unwrap reads only as ControlOutcome.
  return { GET: call("GET"), POST: call("POST"), DELETE: call("DELETE") } as unknown as ControlCalls;
}

/**
 * `direct` until a middleware is added to `api`, then `api` itself: a middleware on `control.api`
 * sees every helper's request, as it does on a client of `createSandboxControl`.
 */
export function directUntilMiddleware(api: ControlApi, direct: ControlCalls): ControlCalls {
  let calls: ControlCalls = direct;
  const use = api.use.bind(api);
  api.use = (...middleware) => {
    calls = api;
    use(...middleware);
  };
  // Chosen at each call: a middleware added later applies to the helpers from then on.
  return {
    GET: (...args) => calls.GET(...args),
    POST: (...args) => calls.POST(...args),
    DELETE: (...args) => calls.DELETE(...args),
  } as ControlCalls;
}
