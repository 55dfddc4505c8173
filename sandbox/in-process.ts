// `createSandbox()` of `idv-contract/sandbox`: the same sandbox as `startSandbox()`, with no
// listening socket. Its `fetch` answers as the HTTP server would (the same request pipeline and
// answers, app.ts, behind the fetch adapter instead of node:http); receivers may be URLs (real
// POSTs) or handlers in this process, called with each delivery as a Request.
import { generateCredentials } from "../src/server/credentials.js";
import { fetchAdapter, type FetchAdapterOptions, type PipelineApp } from "../src/server/fetch-adapter.js";
import { errorBody, sandboxApp } from "./http/app.js";
import { directControlCalls, directUntilMiddleware } from "./control/direct.js";
import {
  controlApi,
  controlOver,
  type CreateReceiverRequest,
  type SandboxControl,
  type SandboxReceiver,
} from "./control/client.js";
import { CONTROL_PREFIX } from "./http/paths.js";
import { type ReceiverHandler, ReceiverHandlers } from "./deliveries/in-process-receivers.js";
import { Sandbox } from "./sandbox.js";
import { checkSharedOptions, type StartSandboxOptions } from "./start-sandbox.js";

export type { ReceiverHandler } from "./deliveries/in-process-receivers.js";

/** The address an in-process sandbox answers as when none is given (`.test`: reserved, never resolved). */
export const IN_PROCESS_URL = "http://sandbox.idv.test";

/** How an in-process receiver is registered: its kind and the credentials its deliveries carry. */
export type ReceiverHandlerOptions = Omit<CreateReceiverRequest, "url">;

/** Options of `createSandbox`: those of `startSandbox` without the socket's and the state file's. */
export interface CreateSandboxOptions extends Pick<
  StartSandboxOptions,
  "key" | "secret" | "clock" | "journeyDelayMs" | "deliveryTimeoutMs" | "log"
> {
  /**
   * The origin the sandbox answers as, in the URLs its answers hold (a PDF's, a capture's): the
   * client's `baseUrl`. `http://sandbox.idv.test` by default. Its `fetch` answers any origin.
   */
  baseUrl?: string;
  /** Receivers registered at start: as `POST /_sandbox/receivers` takes them, or handlers in this process. */
  receivers?: (CreateReceiverRequest | ReceiverHandler)[];
}

/** A sandbox made by `createSandbox`: no socket, its requests answered by `fetch`. */
export interface InProcessSandbox {
  /** The origin it answers as: the client's `baseUrl`. */
  url: string;
  /** The API key it accepts. */
  key: string;
  /** The secret it accepts. */
  secret: string;
  /** A WHATWG fetch answered by the sandbox in this process: `createClient({ …, fetch: sandbox.fetch })`. */
  fetch: typeof fetch;
  /**
   * The typed client of its control API (clock, receivers, deliveries, settled, advance…): its
   * helpers are answered in this process directly, as `fetch` would answer them; `control.api` is
   * openapi-fetch on `fetch`, and once a middleware is added to it (`use`) the helpers go through it.
   */
  control: SandboxControl;
  /** Receivers in this process: a fetch-style handler gets each delivery as a Request. */
  receivers: {
    /**
     * Register a handler as a receiver (an events receiver by default; `auth` as for a URL).
     * Resolves with the receiver as the control API lists it; its url names no host that resolves.
     * The handler is held while its receiver is registered, not after (removed, reset with
     * receivers, closed); refused once `close()` was called.
     */
    add(handler: ReceiverHandler, options?: ReceiverHandlerOptions): Promise<SandboxReceiver>;
  };
  /** The address and credentials under the names the client's samples and the CLIs read. */
  env: { IDV_BASE_URL: string; IDV_API_KEY: string; IDV_API_SECRET: string };
  /**
   * Stop its clock and deliveries and forget its in-process receivers (a receiver removed before is
   * forgotten at once; `receivers.add` is refused from the call on). Safe to call twice.
   */
  close(): Promise<void>;
}

/** The origin of `baseUrl`, or a TypeError naming the option. */
function originOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError("createSandbox: baseUrl must be an absolute http or https URL");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password)
    throw new TypeError("createSandbox: baseUrl must be an http or https origin, without credentials");
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "")
    throw new TypeError("createSandbox: baseUrl must be an origin alone (no path, query or fragment)");
  return url.origin;
}

/**
 * Make a sandbox in this process with no listening socket; resolves once its receivers are
 * registered. Its timers hold no handle while idle; `close()` stops deliveries in flight.
 */
export async function createSandbox(options: CreateSandboxOptions = {}): Promise<InProcessSandbox> {
  const shift = checkSharedOptions(options, "createSandbox");
  const url = originOf(options.baseUrl ?? IN_PROCESS_URL);
  const credentials =
    options.key !== undefined && options.secret !== undefined
      ? { apiKey: options.key, secret: options.secret }
      : generateCredentials();
  const log = options.log;
  const sandbox = new Sandbox({
    credentials,
    ...(options.journeyDelayMs === undefined ? {} : { journeyDelayMs: options.journeyDelayMs }),
    ...(options.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: options.deliveryTimeoutMs }),
    ...(shift === 0 ? {} : { realNow: () => Date.now() + shift }),
    contractViolation: (what) => log?.(`sandbox defect, delivery not sent: ${what}`),
  });
  sandbox.baseUrl = url;
  const app = await sandboxApp(sandbox, false);
  const handlers = new ReceiverHandlers(() => sandbox.receivers().map((r) => r.url));
  const answer: PipelineApp = async (request) => {
    try {
      return await app.answer(request);
    } finally {
      // A control call may have removed receivers (DELETE, a reset with them): nothing holds their
      // handlers from its answer on.
      if (request.method !== "GET" && request.target.pathname.startsWith(CONTROL_PREFIX)) handlers.prune();
    }
  };
  const adapter: FetchAdapterOptions = {
    errorBody,
    onError: (kind) => log?.(`request failed: ${kind}`),
    ...(log ? { log } : {}),
  };
  const fetch = fetchAdapter(answer, adapter) as typeof globalThis.fetch;
  // Its helpers answered directly (direct.ts) until control.api has a middleware; control.api is
  // openapi-fetch on `fetch`, as users call it.
  const api = controlApi(url, fetch);
  const control = controlOver(api, directUntilMiddleware(api, directControlCalls(answer, url, adapter)));
  let closing: Promise<void> | undefined;
  const close = () => {
    handlers.close();
    return (closing ??= sandbox.close().finally(() => handlers.forgetAll()));
  };
  const add = async (handler: ReceiverHandler, given: ReceiverHandlerOptions = {}) => {
    if (typeof handler !== "function") throw new TypeError("receivers.add: the handler must be a function");
    const handlerUrl = handlers.add(handler);
    try {
      // Through the control API, so that it is checked and listed as any receiver is.
      const receiver = await control.addReceiver({ ...given, url: handlerUrl });
      handlers.registeredAs(handlerUrl);
      return receiver;
    } catch (error) {
      handlers.forget(handlerUrl);
      throw error;
    }
  };
  try {
    for (const receiver of options.receivers ?? [])
      await (typeof receiver === "function" ? add(receiver) : control.addReceiver(receiver));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    key: credentials.apiKey,
    secret: credentials.secret,
    fetch,
    control,
    receivers: { add },
    env: { IDV_BASE_URL: url, IDV_API_KEY: credentials.apiKey, IDV_API_SECRET: credentials.secret },
    close,
  };
}
