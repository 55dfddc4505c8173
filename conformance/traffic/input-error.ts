import { JsonTooCostly } from "./json-bounds.js";

// Recorded traffic is read structurally and checked by hand.
export type Raw = any;

/** Thrown for a malformed part of an entry; the reader adds the file and entry. */
export class EntryError extends Error {}

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

/** Where a traffic source's errors say they happened: the file, or "standard input" for `-`. */
export const sourceName = (file: string): string => (file === "-" ? "standard input" : file);

/** Where an entry is, as errors name it: `file: line 3` (NDJSON) or `file: entry 2` (HAR, from 0). */
export function entryWhere(file: string, entry: { index: number; line?: number }): string {
  return `${sourceName(file)}: ${entry.line === undefined ? `entry ${entry.index}` : `line ${entry.line}`}`;
}

/**
 * Check one entry; an error the checks did not foresee becomes an InputError naming the entry (exit 2,
 * one line), never a stack trace and never an error that names nothing. Only the error's kind is kept:
 * its message could quote the entry.
 */
export function checkEntry<T, E extends { index: number; line?: number }>(
  file: string,
  entry: E,
  check: (entry: E) => T,
): T {
  try {
    return check(entry);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const reason =
      error instanceof JsonTooCostly
        ? error.message
        : error instanceof RangeError
          ? "nests too deeply to be checked"
          : `could not be checked (${error instanceof Error ? error.name : typeof error})`;
    throw new InputError(entryWhere(file, entry), reason);
  }
}
