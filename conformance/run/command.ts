// What every verb of `idv-conformance` shares of a command line: the parser and usage errors (from
// src/cli, shared with idv-sandbox), flags read as numbers and report formats (URLs: url-intake.ts),
// the report file (opened before anything is read or sent), and progress for a person at a terminal.
import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { type CliIo, oneOf, readCommandLine, UsageError } from "../../src/cli/args.js";
import type { ReportFormat } from "../findings/reporters.js";
import { InputError } from "../traffic/input-error.js";

export { asUsage, type CliIo, parseFlags, shownWord, UsageError } from "../../src/cli/args.js";

/** The program's name, as its messages begin. */
export const PROGRAM = "idv-conformance";

/** The report formats, as `--format` takes them. */
export const FORMATS: readonly ReportFormat[] = ["text", "json", "junit", "sarif", "github"];

/** The formats of the active tests' reports (probe, receiver): every format. */
export const ACTIVE_FORMATS = [
  "text",
  "json",
  "junit",
  "sarif",
  "github",
] as const satisfies readonly ReportFormat[];

/** The flags every reporting verb takes. */
export const REPORT_FLAGS = {
  format: { type: "string" },
  out: { type: "string" },
} as const;

/**
 * A verb's arguments, or its exit status when there is nothing to run: 0 after `--help`, 2 after a
 * usage error (one line naming what is wrong, then the verb's usage).
 */
export const readArgs = <T>(usage: string, io: CliIo, read: () => T | Promise<T>) =>
  readCommandLine(PROGRAM, usage, io, read);

/** `--format`'s value (text when not given), one of `formats`. */
export const reportFormat = <F extends ReportFormat>(
  value: string | undefined,
  formats: readonly F[] = FORMATS as readonly F[],
): F => (value === undefined ? ("text" as F) : oneOf(value, formats, "--format"));

/** A whole number of at least `min`, from digits only ("0x2", " 2", "2.0" and "1e1" are refused). */
export function wholeNumber(text: string, flag: string, min: number): number {
  const n = /^[0-9]{1,9}$/.test(text) ? Number(text) : -1;
  if (n < min) throw new UsageError(`${flag} must be a whole number ≥ ${min}`);
  return n;
}

/** Open the report file before anything is read or sent, so that a bad path costs nothing. */
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

/** A line of progress that rewrites itself, and its removal. */
export interface Progress {
  show: (line: string) => void;
  clear: () => void;
}

/**
 * Progress on stderr, only for a person watching a terminal (never into a pipe or a file), after
 * `quietMs` and at most five times a second: a short run prints only its report.
 */
export function progress(io: CliIo, quietMs: number): Progress {
  if (!io.stderr.isTTY) return { show: () => undefined, clear: () => undefined };
  const start = Date.now();
  let last = 0;
  return {
    show: (line) => {
      const now = Date.now();
      if (now - start < quietMs || now - last < 200) return;
      last = now;
      io.stderr.write(`\r\x1b[K${line}`);
    },
    clear: () => {
      if (last > 0) io.stderr.write("\r\x1b[K");
      last = 0;
    },
  };
}
