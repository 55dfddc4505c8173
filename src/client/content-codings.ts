// undici (the fetch inside Node.js 20 to 26) refuses an answer naming more than five content codings by
// rejecting the fetch, but leaves the body stream it has already made without an error listener: when the
// connection then fails (a short body, then close), that stream's 'error' is thrown as an uncaught
// exception and ends the caller's process (docs/decisions/client.md). The client's default fetch sends
// through a dispatcher that refuses such an answer before fetch sees its headers: undici then aborts the
// request, and fetch rejects with nothing left behind.

/** The most content codings fetch decodes: undici's own limit. */
export const MAX_CODINGS = 5;

type Method = (this: unknown, ...args: unknown[]) => unknown;
type Handler = Record<string, Method>;
type Dispatcher = { dispatch(options: unknown, handler: unknown): boolean; isMockActive?: boolean };

// Where undici keeps the global dispatcher: version 2 is what undici 8's fetch reads; 6 and 7 read 1.
const GLOBAL = Symbol.for("undici.globalDispatcher.1");
const GLOBAL_2 = Symbol.for("undici.globalDispatcher.2");
const global = globalThis as unknown as Record<symbol, Dispatcher | undefined>;

/** How many codings a Content-Encoding value names, or the values of several such lines, as fetch counts them. */
export const codingsIn = (value: unknown): number => {
  // fetch joins the lines with ", " and splits on ","; an empty value names none.
  const text = Array.isArray(value) ? value.join(", ") : value == null ? "" : String(value);
  return text ? text.split(",").length : 0;
};

/** The codings an answer's headers name: undici 8's parsed headers, or undici 6 and 7's raw name/value pairs. */
const codingsOf = (headers: unknown): number =>
  codingsIn(
    Array.isArray(headers)
      ? // Raw names are bytes: only those as long as the name sought are read as text.
        headers.filter(
          (_, i) => i % 2 && headers[i - 1]?.length === 16 && /^content-encoding$/i.test(headers[i - 1]),
        )
      : (headers as Record<string, unknown>)["content-encoding"],
  );

/** The cause of a fetch refused for its answer's codings: the same answer would come again, so it is not retried. */
export class CodingsError extends Error {}

/** fetch's handler, its header callback now checking the codings first; everything else stays fetch's. */
function guarded(handler: Handler): Handler {
  // undici 8 calls onResponseStart(controller, status, headers); undici 6 and 7, onHeaders(status, rawHeaders).
  const name = handler.onResponseStart ? "onResponseStart" : "onHeaders";
  const at = name === "onHeaders" ? 0 : 1;
  const onHeaders = handler[name] as Method;
  // Replaced on fetch's own handler, not on an object made over it: a handler used as a prototype slows
  // down every callback undici makes on it.
  handler[name] = function (...args) {
    const codings = codingsOf(args[at + 1]);
    // An error thrown by a handler's header callback makes undici abort the request with it.
    if ((args[at] as number) >= 200 && codings > MAX_CODINGS) {
      throw new CodingsError(
        `the response names ${codings} content codings (at most ${MAX_CODINGS} are read)`,
      );
    }
    return onHeaders.apply(this, args);
  };
  return handler;
}

const isDispatcher = (value: unknown): value is Dispatcher =>
  typeof (value as Partial<Dispatcher> | null | undefined)?.dispatch === "function";

/** The global dispatcher Node's fetch would use for `handler`: version 2 for undici 8's handlers, else 1. */
function globalFor(handler?: Handler): Dispatcher | undefined {
  const v1 = global[GLOBAL];
  const v2 = global[GLOBAL_2];
  if (handler?.onResponseStart && isDispatcher(v2)) return v2;
  return isDispatcher(v1) ? v1 : isDispatcher(v2) ? v2 : undefined;
}

/** A dispatcher for Node's fetch: `own` (the caller's), else the global one, refusing stacked codings first. */
function guardOver(own?: Dispatcher): Dispatcher {
  return {
    dispatch(options, handler) {
      const target = own ?? globalFor(handler as Handler);
      if (!target) throw new TypeError("no undici dispatcher to send through");
      return target.dispatch(options, guarded(handler as Handler));
    },
    get isMockActive() {
      return (own ?? global[GLOBAL_2] ?? global[GLOBAL])?.isMockActive;
    },
  };
}

const globalGuard = guardOver();

/**
 * The init for Node's fetch with the guard as its dispatcher, over the caller's own (`init.dispatcher`,
 * kept: a proxy agent) or undici's global one. When no global dispatcher is where undici 6 to 8 keep it
 * (a later undici, another fetch), the init is sent as it is: unguarded, never unsendable.
 */
export function withCodingsGuard(init?: RequestInit): RequestInit | undefined {
  const own = (init as { dispatcher?: unknown } | undefined)?.dispatcher;
  const dispatcher = own == null ? globalFor() && globalGuard : isDispatcher(own) && guardOver(own);
  return dispatcher ? ({ ...init, dispatcher } as RequestInit) : init;
}
