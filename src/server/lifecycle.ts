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

/**
 * Print why a server could not start as `${prefix}${reason}` on stderr: `inUse` when its port is taken,
 * the error's message otherwise. Returns whether the port was in use; the caller picks the exit code.
 */
export function reportStartError(error: unknown, prefix: string, inUse: string): boolean {
  const portInUse = (error as NodeJS.ErrnoException)?.code === "EADDRINUSE";
  console.error(`${prefix}${portInUse ? inUse : String((error as Error)?.message ?? error)}`);
  return portInUse;
}
