// Ports, listening, closing, and stopping on SIGINT/SIGTERM, shared by every server started from a CLI.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A TCP port from a flag or an environment value; `fallback` when neither is given, an error when it is not a port. */
export function parsePort(value: string | undefined, fallback: number, name = "port"): number {
  if (value === undefined || value.trim() === "") return fallback;
  const port = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** A server listening, with the URL it answers on and a close that ends its connections. */
export interface Listening {
  url: string;
  host: string;
  port: number;
  server: Server;
  /** Stop accepting, end idle connections at once and busy ones after `graceMs` (1 s by default). */
  close(graceMs?: number): Promise<void>;
}

const started = new Set<Listening>();

/**
 * Listen on a host and port (0 picks a free one); rejects with the listen error (EADDRINUSE…).
 * The server is remembered until closed, so `closeOnSignals()` can stop every one.
 */
export async function listen(server: Server, port: number, host = "127.0.0.1"): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // After listening, an accept error (EMFILE…) must not end the process; the next accept may succeed.
  server.on("error", () => {});
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const listening: Listening = {
    url: `http://${shown}:${address.port}`,
    host: address.address,
    port: address.port,
    server,
    close: (graceMs = 1000) => {
      started.delete(listening);
      return new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
  started.add(listening);
  return listening;
}

/** Close every server `listen` started that is still open. */
export function closeAll(): Promise<void> {
  return Promise.all([...started].map((s) => s.close())).then(() => undefined);
}

/**
 * On SIGINT or SIGTERM run `close` (by default: close every server `listen` started), then exit
 * with `exitCode()` (0 by default). A second signal, or a close that takes over 5 s, exits at once.
 */
export function closeOnSignals(
  close: () => Promise<unknown> = closeAll,
  exitCode: () => number = () => 0,
): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(exitCode());
    stopping = true;
    setTimeout(() => process.exit(exitCode()), 5000).unref();
    close().then(
      () => process.exit(exitCode()),
      () => process.exit(exitCode()),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** Where a server tried to listen, and how its user picks another port. */
export interface ListenAttempt {
  host: string;
  port: number;
  /** Which of the command's servers it is, when it starts more than one ("docs site"). */
  what?: string;
  /** How the command that started it moves the port: "pick another with --port (0 picks a free one)". */
  move: string;
}

/** The exit code of a server that could not start: 2, as for a refused flag (1 is a run that ended badly). */
const START_FAILED = 2;

/**
 * Say on stderr, in one line, why a server could not start: a port in use names the port and the
 * host and how to pick another; another error gives its message (listen's names the address).
 * Returns the exit code every CLI of the package gives for it, START_FAILED.
 */
export function startFailed(error: unknown, prefix: string, at: ListenAttempt): number {
  const why =
    (error as NodeJS.ErrnoException)?.code === "EADDRINUSE"
      ? `port ${at.port} on ${at.host}${at.what ? ` (the ${at.what})` : ""} is in use; ${at.move}`
      : String((error as Error)?.message ?? error);
  // One line: a message with line breaks (a wrapped cause) would read as several failures.
  console.error(`${prefix}${why.replace(/\s*[\r\n]+\s*/g, " ").trim()}`);
  return START_FAILED;
}
