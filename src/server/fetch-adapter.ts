// The pipeline's WHATWG fetch adapter: a Request in, a Response out, no socket. What the node:http
// server does around the pipeline is done here too: a target over 16 KiB is a 414 (Node's parser
// refuses one too), a target that is no path a 400, a thrown HttpError its status, any other throw
// a 500, all in the caller's error shape; the body is read within the caller's limit (one byte
// more is refused and the stream cancelled, never read on) and a deadline (a 408); the request's
// signal is honoured as fetch honours it; HEAD gets the headers alone.
import type { Answer } from "./answer.js";
import { type ErrorBody, HttpError } from "./handler.js";
import type { PipelineRequest, Served } from "./pipeline.js";
import { MAX_TARGET_BYTES, parseRequestTarget } from "./request-target.js";
import { streamBody } from "./stream-body.js";

/** Answers a PipelineRequest; it may throw or reject. */
export type PipelineApp = (request: PipelineRequest) => Promise<Served>;

export interface FetchAdapterOptions {
  errorBody: ErrorBody;
  /** Told the kind of each unexpected failure (the error's name, never its message). */
  onError?: (kind: string, pathname: string | undefined) => void;
  /** Told each answer's log line. */
  log?: (line: string) => void;
  /** How long a request body may take to be read, in ms, then a 408 (BODY_TIMEOUT_MS by default); 0: no deadline. */
  bodyTimeoutMs?: number;
}

/** A fetch function: what `fetch` takes, a Response of the app's answer. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const INTERNAL = "The server failed to answer this request.";

/** Statuses whose answer has no body (a Response refuses one). */
const NULL_BODY = new Set([204, 205, 304]);
const EMPTY = Buffer.alloc(0);

/** An answer's JSON text, when it is JSON; a TypeError when its json has none (a function), as over node:http. */
function jsonTextOf(answer: Answer): string | undefined {
  if (answer.bytes !== undefined || answer.json === undefined) return undefined;
  const text = JSON.stringify(answer.json) as string | undefined;
  if (text === undefined) throw new TypeError("The answer's json has no JSON text.");
  return text;
}

/** An answer as a Response carries it: its headers and body (none for HEAD or a null-body status). */
export interface WireAnswer {
  status: number;
  headers: Headers;
  body: string | Uint8Array<ArrayBuffer> | null;
}

/**
 * An answer's wire form, with its Content-Length (and JSON's Content-Type); what a Response refuses
 * throws as it would: a status outside 200-599 a RangeError, a header it cannot carry a TypeError.
 */
export function wireOf(method: string, answer: Answer): WireAnswer {
  // JSON goes as its text: the Response encodes it as it is read, where a Buffer of it first is a copy more.
  const text = jsonTextOf(answer);
  const bytes = answer.bytes ?? EMPTY;
  const headers = new Headers(answer.headers);
  // The status as a Response reads it (WebIDL's unsigned short), and refuses it, after its headers.
  const status = Number.isFinite(answer.status) ? ((Math.trunc(answer.status) % 65536) + 65536) % 65536 : 0;
  if (status < 200 || status > 599)
    throw new RangeError(`The status ${status} is not in the range of 200 to 599.`);
  if (answer.json !== undefined) headers.set("content-type", "application/json");
  headers.set("content-length", String(text === undefined ? bytes.length : Buffer.byteLength(text, "utf8")));
  const empty = method === "HEAD" || NULL_BODY.has(status);
  const body = empty
    ? null
    : (text ?? new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length));
  return { status, headers, body };
}

/** A Response of an Answer, with its Content-Length (and JSON's Content-Type); HEAD gets no body. */
export function answerResponse(method: string, answer: Answer): Response {
  const { status, headers, body } = wireOf(method, answer);
  return new Response(body, { status, headers });
}

/** The request's headers in a null-prototype record (names lower-cased, repeats joined by Headers). */
function headerRecordOf(headers: Headers): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** The error answer of a failure no handler answered, in the caller's shape. */
function errorAnswer(
  options: FetchAdapterOptions,
  status: number,
  message: string,
  pathname: string | undefined,
  headers: Record<string, string> = {},
): Answer {
  let json: unknown;
  try {
    json = options.errorBody(status, message, pathname);
  } catch {
    // The shape builder itself failed: a bare body still says what happened.
    json = { message };
  }
  return { status, json, headers };
}

/** Members of RequestInit that change nothing the adapter reads (method, URL, headers, body). */
const REDIRECTS = new Set<unknown>([undefined, "follow", "manual", "error"]);

/**
 * The request to answer: `new Request(input, init)`, as fetch makes it; but a Request given with no
 * init, or one that sets only `redirect` and `signal` (what clients add, and the adapter never reads:
 * it follows no redirect and answers at once), is read as it is. Copying a Request costs more than
 * answering most of the sandbox's requests. One whose body was used or is locked is copied, so that
 * fetch's TypeError says so.
 */
function requestOf(input: string | URL | Request, init: RequestInit | undefined): Request {
  if (
    input instanceof Request &&
    !input.bodyUsed &&
    !input.body?.locked &&
    (init === undefined ||
      (Object.getPrototypeOf(init) === Object.prototype &&
        Object.keys(init).every((key) => key === "redirect" || key === "signal") &&
        REDIRECTS.has(init.redirect) &&
        (init.signal === undefined || init.signal === null || init.signal instanceof AbortSignal)))
  )
    return input;
  return new Request(input, init);
}

/** A request in this process, before its target is parsed: what the adapter reads of a Request. */
export interface LocalRequest {
  /** The method, upper-cased. */
  method: string;
  /** The path and query, as a URL parser gives them. */
  pathAndQuery: string;
  headers: PipelineRequest["headers"];
  readBody: PipelineRequest["readBody"];
}

/**
 * The app's answer to a request, its line logged: a target longer than Node's parser takes is a
 * 414, one that is no path a 400, and a failure no handler answered its error answer (a thrown
 * HttpError its status, any other a 500).
 */
export async function answerLocally(
  app: PipelineApp,
  { method, pathAndQuery, headers, readBody }: LocalRequest,
  options: FetchAdapterOptions,
): Promise<{ answer: Answer; pathname: string | undefined }> {
  // A URL parser's path and query are ASCII (all else percent-encoded): its length is its bytes.
  if (pathAndQuery.length > MAX_TARGET_BYTES)
    return {
      answer: errorAnswer(options, 414, "The request target is longer than 16 KiB.", undefined),
      pathname: undefined,
    };
  const target = parseRequestTarget(pathAndQuery);
  if (!target)
    return {
      answer: errorAnswer(options, 400, "The request target is not a path.", undefined),
      pathname: undefined,
    };
  try {
    const served = await app({ method, target, headers, readBody });
    if (served.line !== undefined) options.log?.(served.line);
    return { answer: served.answer, pathname: target.pathname };
  } catch (error) {
    return { answer: failureAnswer(options, error, target.pathname), pathname: target.pathname };
  }
}

/** The error answer of a throw: an HttpError's status, any other a 500 whose kind is told. */
export function failureAnswer(
  options: FetchAdapterOptions,
  error: unknown,
  pathname: string | undefined,
): Answer {
  if (error instanceof HttpError)
    return errorAnswer(options, error.status, error.message, pathname, error.headers);
  options.onError?.((error as Error)?.name ?? typeof error, pathname);
  return errorAnswer(options, 500, INTERNAL, pathname);
}

/**
 * The signal fetch would follow: the init's when it has one (null: none), else the Request's. The
 * Request read as it is (requestOf) has not taken the init's.
 */
function signalOf(request: Request, init: RequestInit | undefined): AbortSignal | null {
  return init?.signal !== undefined ? init.signal : request.signal;
}

/** A fetch function answering from `app`, in this process: no socket is opened. */
export function fetchAdapter(app: PipelineApp, options: FetchAdapterOptions): FetchFunction {
  return async (input, init) => {
    const request = requestOf(input, init);
    const signal = signalOf(request, init);
    const body = streamBody(request.body, {
      signal,
      ...(options.bodyTimeoutMs === undefined ? {} : { timeoutMs: options.bodyTimeoutMs }),
    });
    try {
      // As fetch: an aborted signal rejects with its reason before anything is sent.
      signal?.throwIfAborted();
      const method = request.method.toUpperCase();
      const url = new URL(request.url);
      const answering = answerLocally(
        app,
        {
          method,
          pathAndQuery: url.pathname + url.search,
          headers: headerRecordOf(request.headers),
          readBody: (maxBytes) => body.read(maxBytes),
        },
        options,
      );
      // The caller gone (its signal aborted, its stream failed) rejects at once, as fetch does; the
      // app's answer, made without the rest of the body, is dropped.
      const { answer, pathname } = await Promise.race([answering, body.gone]);
      // Aborted while the answer was made, before the signal was listened to (stream-body.ts).
      signal?.throwIfAborted();
      try {
        return answerResponse(method, answer);
      } catch (error) {
        // An answer with no wire form (a json with no JSON text) is the app's failure too.
        return answerResponse(method, failureAnswer(options, error, pathname));
      }
    } finally {
      body.close();
    }
  };
}
