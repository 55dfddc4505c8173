// Start a sandbox: its state (from --state FILE when given), the receiver of --webhook-url, the
// HTTP server. The CLI, `npm start`, the package's startSandbox() and the tests all start it
// through launchSandbox here.
import { type Listening } from "../src/server/index.js";
import { type Credentials, generateCredentials } from "../src/server/credentials.js";
import { type Delivery, type Receiver, type ReceiverAuth, receiverAuthProblem } from "./deliveries/queue.js";
import { receiverUrl } from "./control/handlers.js";
import { Sandbox } from "./sandbox.js";
import { serveSandbox } from "./http/server.js";
import { pointsAtSandbox, SELF_RECEIVER } from "./http/self-address.js";
import { readState, restoreState, StateFileError, stateSaver } from "./state/file.js";
import { lockState, type StateLock } from "./state/lock.js";

export interface StartOptions {
  port?: number;
  host?: string;
  /** The credentials accepted; generated when omitted (read them from the result). */
  credentials?: Credentials;
  /** A receiver of the biometric and EDD events registered at start. */
  webhookUrl?: string;
  webhookAuth?: ReceiverAuth;
  /** Keep state in this file across restarts. */
  stateFile?: string;
  journeyDelayMs?: number;
  deliveryTimeoutMs?: number;
  /** Records kept at most (tests make it small). */
  maxRecords?: number;
  /** The real clock the virtual one runs on (`startSandbox`'s `clock` shifts it to start elsewhere). */
  realNow?: () => number;
  log?: (line: string) => void;
  observeDelivery?: (delivery: Delivery, receiver: Receiver) => void;
}

export interface RunningSandbox {
  url: string;
  credentials: Credentials;
  /** Whether the credentials were generated (and should be printed). */
  generated: boolean;
  sandbox: Sandbox;
  server: Listening;
  /** Stop the server, the clock and deliveries; save the state. */
  close(): Promise<void>;
}

/** Parse `bearer:TOKEN` or `basic:USER:PASS`; an Error naming the form otherwise (never echoing the value). */
export function parseWebhookAuth(text: string): ReceiverAuth {
  const colon = text.indexOf(":");
  const scheme = text.slice(0, colon).toLowerCase();
  const rest = text.slice(colon + 1);
  const sep = rest.indexOf(":");
  const auth: ReceiverAuth | undefined =
    colon > 0 && scheme === "bearer" && rest.length > 0
      ? { scheme: "bearer", token: rest }
      : colon > 0 && scheme === "basic" && sep > 0 && sep < rest.length - 1
        ? { scheme: "basic", username: rest.slice(0, sep), password: rest.slice(sep + 1) }
        : undefined;
  if (!auth) throw new Error("--webhook-auth must be bearer:TOKEN or basic:USER:PASS");
  // The rule the control API and the state file use too: what starts now starts again from --state.
  const problem = receiverAuthProblem(auth);
  if (problem) throw new Error(`--webhook-auth: the ${problem.member.slice(1)} ${problem.why}`);
  return auth;
}

/**
 * Start a sandbox and its server. With a state file, the file is locked first (a StateLockError
 * when another live sandbox holds it) and released when the sandbox stops or fails to start.
 */
export async function launchSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const lock = options.stateFile === undefined ? undefined : lockState(options.stateFile);
  try {
    return await startLocked(options, lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/**
 * Why the sandbox cannot keep the receivers it restored or is given: one pointing at its own
 * address and port, checked once it listens (only then is its port known). One from --state is
 * the file's fault, --webhook-url the flag's.
 */
function selfReceiverProblem(sandbox: Sandbox, options: StartOptions): Error | undefined {
  const at = [...sandbox.queue.receivers.values()].findIndex((r) =>
    pointsAtSandbox(r.url, sandbox.listening),
  );
  if (at >= 0 && options.stateFile)
    return new StateFileError(
      options.stateFile,
      `holds a receiver whose url points at this sandbox itself, its own address and port, where deliveries would loop (at /receivers/${at})`,
    );
  if (options.webhookUrl !== undefined && pointsAtSandbox(options.webhookUrl, sandbox.listening))
    return new Error(`--webhook-url ${SELF_RECEIVER}`);
  return undefined;
}

/** Start a sandbox and its server, its state file (if any) locked already. */
async function startLocked(options: StartOptions, lock: StateLock | undefined): Promise<RunningSandbox> {
  const generated = options.credentials === undefined;
  const credentials = options.credentials ?? generateCredentials();
  let saver: ReturnType<typeof stateSaver> | undefined;
  const contractViolation = (what: string) => options.log?.(`sandbox defect, delivery not sent: ${what}`);
  const sandbox = new Sandbox({
    credentials,
    ...(options.journeyDelayMs === undefined ? {} : { journeyDelayMs: options.journeyDelayMs }),
    ...(options.deliveryTimeoutMs === undefined ? {} : { deliveryTimeoutMs: options.deliveryTimeoutMs }),
    ...(options.maxRecords === undefined ? {} : { maxRecords: options.maxRecords }),
    ...(options.realNow ? { realNow: options.realNow } : {}),
    ...(options.observeDelivery ? { observeDelivery: options.observeDelivery } : {}),
    changed: () => saver?.changed(),
    saveNow: () => {
      try {
        saver?.flush();
      } catch (error) {
        options.log?.(
          `sandbox: could not save the state: ${(error as NodeJS.ErrnoException)?.code ?? "error"}`,
        );
      }
    },
    contractViolation,
  });
  if (options.stateFile) {
    const data = readState(options.stateFile);
    if (data) {
      try {
        restoreState(sandbox, data);
      } catch {
        // The shape was checked; what is left (a record too deep to measure, say) is still the file's fault.
        throw new StateFileError(options.stateFile, "holds state the sandbox cannot restore");
      }
    }
    saver = stateSaver(options.stateFile, sandbox);
  }
  const webhookUrl = options.webhookUrl === undefined ? undefined : receiverUrl(options.webhookUrl);
  const server = await serveSandbox(sandbox, {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.log ? { log: options.log } : {}),
  });
  const selfProblem = selfReceiverProblem(sandbox, options);
  if (selfProblem) {
    // Nothing of it is saved: the file stays as it was.
    saver = undefined;
    await Promise.all([sandbox.close(), server.close()]);
    throw selfProblem;
  }
  const already = [...sandbox.queue.receivers.values()].find(
    (r) => r.url === webhookUrl && r.kind === "events",
  );
  if (webhookUrl && !already) sandbox.queue.addReceiver(webhookUrl, "events", options.webhookAuth);
  // Restored from --state: the flags given now are its credentials, so a rotated token takes effect.
  if (already) {
    if (options.webhookAuth) already.auth = options.webhookAuth;
    else delete already.auth;
    sandbox.changed();
  }
  // Timers restored from a state file that fell due while it was stopped run now.
  sandbox.clock.run();
  return {
    url: server.url,
    credentials,
    generated,
    sandbox,
    server,
    close: async () => {
      try {
        await Promise.all([sandbox.close(), server.close()]);
        saver?.flush();
      } finally {
        lock?.release();
      }
    },
  };
}
