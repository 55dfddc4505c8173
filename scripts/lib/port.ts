/** A TCP port from a flag or an environment value; `fallback` when neither is given, an error when it is not a port. */
export function parsePort(value: string | undefined, fallback: number, name = "port"): number {
  if (value === undefined || value.trim() === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** The value of `--port N` (or `--port=N`) in an argument list; an error when the flag has no value. */
export function portFlag(argv: string[]): string | undefined {
  const i = argv.findIndex((a) => a === "--port" || a.startsWith("--port="));
  if (i < 0) return undefined;
  const arg = argv[i] as string;
  const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error("--port needs a value");
  return value;
}
