// What the active commands (`probe`, `receiver`) share of a command line: usage errors, flags read as
// numbers (URLs: url-intake.ts), and the report file, opened before anything is sent.
import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { InputError } from "../traffic/input-error.js";

/** A command line that cannot be run: printed with the command's usage, exit 2. */
export class UsageError extends Error {}

/** Where a command writes: the process's streams, or a test's. */
interface CommandIo {
  stdout: Writable;
  stderr: Writable;
}

/**
 * A command's arguments, or the exit status when there is nothing to run: 2 after a usage error (the
 * message, then the usage), 0 after `--help`. Errors other than usage errors are not caught.
 */
export function parseCommand<T extends { help: boolean }>(
  parse: () => T,
  usage: string,
  io: CommandIo,
): Exclude<T, { help: true }> | number {
  let args: T;
  try {
    args = parse();
  } catch (error) {
    // node:util's parseArgs throws TypeError for an unknown or malformed flag.
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    io.stderr.write(`idv-conformance: ${error.message}\n\n${usage}\n`);
    return 2;
  }
  if (!args.help) return args as Exclude<T, { help: true }>;
  io.stdout.write(`${usage}\n`);
  return 0;
}

/** A whole number of at least `min`, from digits only. */
export function wholeNumber(text: string, flag: string, min: number): number {
  const n = /^[0-9]{1,9}$/.test(text) ? Number(text) : -1;
  if (n < min) throw new UsageError(`${flag} must be a whole number ≥ ${min}`);
  return n;
}

/** Open the report file before anything is sent, so that a bad path costs no requests. */
export function openOut(file: string): Promise<Writable> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(file);
    stream.once("open", () => resolve(stream));
    stream.once("error", () => reject(new InputError(file, "cannot be written")));
  });
}

/** Close a report file and wait until it is written. */
export const closeOut = (out: Writable): Promise<void> =>
  new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
