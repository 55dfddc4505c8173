/** A TCP port from a flag or an environment value; `fallback` when neither is given, an error when it is not a port. */
export function parsePort(value: string | undefined, fallback: number, name = "port"): number {
  if (value === undefined || value.trim() === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
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

/** On Ctrl+C or SIGTERM, run `close` and exit 0; a second signal meanwhile ends the process at once. */
export function closeOnSignals(close: () => Promise<unknown>): void {
  const stop = (): void => {
    void close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
