// The validating proxy: forwards each request to the service unchanged and streams the answer back,
// keeping a copy of each body up to a byte limit, then checks the exchange against the contract
// (each exchange's steps: forward.ts). It never follows a redirect (a 3xx goes back to the client as
// sent) and adds no buffering. Everything it keeps of all exchanges is counted in one budget of
// bytes (budget.ts): when it is spent, reading pauses until bytes are given back.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { createSafeServer, listen, type Listening, type RequestTarget } from "../../src/server/index.js";
import { refuseFraming, refuseTunnels } from "./request-head.js";
import { forward } from "./forward.js";
import { type ConformanceChecker, contractModelOf } from "../run/open-checker.js";
import type { RouteTable } from "../../src/contract/router.js";
import type { OperationModel } from "../checks/contract-model.js";
import {
  DEFAULT_CAPTURE_BYTES,
  DEFAULT_MEMORY_BYTES,
  perExchangeBytes,
  type ProxyContext,
  type ProxyOptions,
  proxyError,
} from "./proxy-context.js";
import { type BudgetHolder, ByteBudget } from "./budget.js";

export { DEFAULT_CAPTURE_BYTES, DEFAULT_MEMORY_BYTES, type ProxyOptions } from "./proxy-context.js";

export interface RunningProxy {
  url: string;
  /** What the proxy holds of its exchanges, in bytes: now, at most so far, and the waits for more. */
  readonly memory: { usedBytes: number; highWaterBytes: number; waitingCount: number; totalBytes: number };
  close(): Promise<void>;
}

/** The budget of a proxy's options; a RangeError naming the options when it cannot hold one exchange. */
function budgetOf(options: ProxyOptions, limit: number): ByteBudget {
  const perExchange = perExchangeBytes(limit, options.sign !== undefined);
  const total = options.memoryBytes ?? Math.max(DEFAULT_MEMORY_BYTES, perExchange);
  if (total < perExchange)
    throw new RangeError(
      `proxy: memoryBytes must be at least ${options.sign ? 4 : 3} times captureBytes (${perExchange})`,
    );
  return new ByteBudget(total, perExchange, options.onMemoryWait);
}

/** The routes `--sign` finds operations by: those of the checker's own model, so both agree. */
function signingRoutes(checker: ConformanceChecker): RouteTable<OperationModel> {
  const model = contractModelOf(checker);
  if (!model) throw new TypeError("proxy: signing needs a checker opened by openConformanceChecker");
  return model.routes;
}

/** Start the proxy; each completed exchange is checked and reported through the callbacks. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = options.upstream;
  let index = 0;
  const limit = options.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const budget = budgetOf(options, limit);
  const holders = new WeakMap<ServerResponse, BudgetHolder>();
  const ctx: ProxyContext = {
    options,
    upstream,
    send: upstream.protocol === "https:" ? httpsRequest : httpRequest,
    basePath: upstream.pathname.replace(/\/$/, ""),
    limit,
    nextIndex: () => index++,
    holderOf: (res) => {
      let holder = holders.get(res);
      if (holder) return holder;
      holder = budget.open();
      holders.set(res, holder);
      // The answer's own use ends once it is closed; the check's (forward.ts) may outlive it. A turn
      // later, so that a check begun as the answer finished holds the holder first.
      const opened = holder;
      res.once("close", () => setImmediate(() => opened.endUse()));
      return holder;
    },
  };
  // Exchanges under way: closing waits for their verdicts, so none is lost from the summary.
  const inFlight = new Set<Promise<void>>();

  function handle(req: IncomingMessage, res: ServerResponse, target: RequestTarget): Promise<void> | void {
    // Nothing of a refused request reaches the service; the safe handler answers it and closes the
    // connection, so no unread body is taken for a request, and none pipelined after it is handled.
    refuseFraming(req);
    // Done once its share of the budget is closed: answered, checked and recorded.
    const done = ctx.holderOf(res).closed;
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    // The request's body stays unread while held: the client's socket is what waits, not memory.
    const ready = options.ready?.();
    if (!ready) return forward(ctx, req, res, target);
    // Returned, so that the safe handler answers anything forward throws after the wait.
    return ready.then(() => {
      if (!res.destroyed) forward(ctx, req, res, target);
    });
  }

  // No deadline for a whole request: one held while the recording catches up, or an upload paced by
  // a slow service, must not be cut off and lost.
  const server = createSafeServer(
    options.sign ? options.sign(handle, signingRoutes(options.checker), ctx.holderOf) : handle,
    {
      errorBody: proxyError,
      requestTimeoutMs: 0,
    },
  );
  refuseTunnels(server, (status, message) => proxyError(status, message, undefined));
  const listening: Listening = await listen(server, options.port ?? 4011, options.host ?? "127.0.0.1");
  return {
    url: listening.url,
    memory: {
      get usedBytes() {
        return budget.usedBytes;
      },
      get highWaterBytes() {
        return budget.highWaterBytes;
      },
      get waitingCount() {
        return budget.waitingCount;
      },
      totalBytes: budget.totalBytes,
    },
    close: async () => {
      await listening.close();
      await Promise.all(inFlight);
    },
  };
}
