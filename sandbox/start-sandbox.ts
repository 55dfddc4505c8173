// `startSandbox()` of `idv-contract/sandbox`: the stateful sandbox started in the caller's own
// process, for an integrator's test setup (a vitest or jest globalSetup), with its address, the
// credentials it accepts and the typed control client in hand.
import { createSandboxControl, type CreateReceiverRequest, type SandboxControl } from "./control/client.js";
import { MAX_VIRTUAL_TIME } from "./clock/clock.js";

/** Options of `startSandbox`. Every one may be left out. */
export interface StartSandboxOptions {
  /** The port to listen on; 0 (the default) picks a free one: read it from `url`. */
  port?: number;
  /** The address to listen on; 127.0.0.1 by default. */
  host?: string;
  /** The API key the sandbox accepts; with `secret`, or both generated when both are left out. */
  key?: string;
  /** The secret the sandbox accepts (v2's Svc-Secret, the key of v4's signature). */
  secret?: string;
  /** Receivers registered at start, as the control API's `POST /_sandbox/receivers` takes them. */
  receivers?: CreateReceiverRequest[];
  /** The virtual time the sandbox starts at (ISO-8601 or a Date); real time by default. */
  clock?: string | Date;
  /** Real milliseconds before each step of a magic journey (2,000 by default). */
  journeyDelayMs?: number;
  /**
   * Real milliseconds a delivery attempt may take before it counts as unanswered (10,000 by
   * default): what `advance()` and `settled()` wait at most for one attempt.
   */
  deliveryTimeoutMs?: number;
  /**
   * Keep records, receivers, deliveries and the clock in this file across starts, as `--state`
   * does. One sandbox per file: a second one on a file a live sandbox holds throws StateLockError.
   */
  state?: string;
  /** Told one line per request (method, route template, status); silent by default. */
  log?: (line: string) => void;
}

/** A sandbox started by `startSandbox`. */
export interface StartedSandbox {
  /** Where it listens, e.g. `http://127.0.0.1:38117`: the client's `baseUrl`. */
  url: string;
  /** The API key it accepts. */
  key: string;
  /** The secret it accepts. */
  secret: string;
  /** The typed client of its control API (clock, receivers, deliveries, transitions). */
  control: SandboxControl;
  /**
   * The address and credentials under the names the client's samples, `idv-conformance` and
   * `idv-sandbox` read: `Object.assign(process.env, sandbox.env)`, or a child process's `env`.
   */
  env: { IDV_BASE_URL: string; IDV_API_KEY: string; IDV_API_SECRET: string };
  /** Stop it: the server and its connections, the clock and the delivery queue. Safe to call twice. */
  close(): Promise<void>;
}

/** The virtual start time in epoch milliseconds, or a TypeError naming the option (never its value). */
function startTime(clock: string | Date, caller: string): number {
  const at = clock instanceof Date ? clock.getTime() : Date.parse(clock);
  if (!Number.isFinite(at) || at < 0 || at >= MAX_VIRTUAL_TIME)
    throw new TypeError(`${caller}: clock must be a date from 1970 to 9998 (ISO-8601 or a Date)`);
  return at;
}

/** The options startSandbox and createSandbox share. */
export type SharedSandboxOptions = Pick<
  StartSandboxOptions,
  "key" | "secret" | "clock" | "deliveryTimeoutMs"
>;

/**
 * Check the options both ways of starting a sandbox share (a TypeError naming the option, never its
 * value); the result is the shift of the clock from real time (0 without `clock`).
 */
export function checkSharedOptions(options: SharedSandboxOptions, caller: string): number {
  if ((options.key === undefined) !== (options.secret === undefined))
    throw new TypeError(`${caller}: key and secret go together`);
  if (options.key === "" || options.secret === "")
    throw new TypeError(`${caller}: key and secret must not be empty`);
  const timeout = options.deliveryTimeoutMs;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout >= 1 && timeout <= 600_000))
    throw new TypeError(`${caller}: deliveryTimeoutMs must be an integer from 1 to 600000`);
  // The clock reads real time shifted once, so that it starts at the given instant and then runs.
  return options.clock === undefined ? 0 : startTime(options.clock, caller) - Date.now();
}

/**
 * Start a sandbox in this process and resolve once it listens and its receivers are registered.
 * With `state`, a file it cannot use rejects with StateFileError, one another live sandbox holds
 * with StateLockError.
 * Its timers hold no handle while idle, but its server does: call `close()` when the tests are done.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<StartedSandbox> {
  const shift = checkSharedOptions(options, "startSandbox");
  // Loaded here, not at import: a test that only drives a running sandbox needs none of the server.
  const { launchSandbox: start } = await import("./start.js");
  const running = await start({
    port: options.port ?? 0,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.key !== undefined && options.secret !== undefined
      ? { credentials: { apiKey: options.key, secret: options.secret } }
      : {}),
    ...(shift === 0 ? {} : { realNow: () => Date.now() + shift }),
    ...(options.journeyDelayMs === undefined ? {} : { journeyDelayMs: options.journeyDelayMs }),
    ...(options.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: options.deliveryTimeoutMs }),
    ...(options.log ? { log: options.log } : {}),
    ...(options.state === undefined ? {} : { stateFile: options.state }),
  });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= running.close());
  const control = createSandboxControl(running.url);
  try {
    // Through the control API, so a receiver is checked exactly as one added later would be.
    for (const receiver of options.receivers ?? []) await control.addReceiver(receiver);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url: running.url,
    key: running.credentials.apiKey,
    secret: running.credentials.secret,
    control,
    env: {
      IDV_BASE_URL: running.url,
      IDV_API_KEY: running.credentials.apiKey,
      IDV_API_SECRET: running.credentials.secret,
    },
    close,
  };
}
