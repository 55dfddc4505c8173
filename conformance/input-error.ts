/** Input that cannot be checked at all: the CLI reports it with exit code 2, never a stack trace. */
export class InputError extends Error {
  override name = "InputError";
  /** @param where the file and the entry or line, e.g. `traffic.har: entry 3` */
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`${where}: ${reason}`);
  }
}

/** A JSON.parse failure described without echoing the input (V8 messages quote a snippet of it). */
export function describeJsonError(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  if (/end of (JSON )?input|Unterminated/i.test(message))
    return "is not valid JSON: it ends too early (truncated?)";
  const position = /position (\d+)/.exec(message)?.[1];
  return position ? `is not valid JSON (error at character ${position})` : "is not valid JSON";
}
