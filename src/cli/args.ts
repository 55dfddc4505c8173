// The one command-line parser of the package's programs (`idv-conformance` and each of its verbs,
// `idv-sandbox`): node:util's parseArgs reads the words, and every word it would have thrown on
// (an unknown flag, a flag without its value, a value given to a switch) becomes a UsageError
// naming the flag, so that each program answers it the same way: one line, the usage, exit 2.
import { parseArgs } from "node:util";
import type { Writable } from "node:stream";

/** A command line that cannot be run: one line naming what is wrong, then the usage; exit 2. */
export class UsageError extends Error {}

/** A flag: a string that takes a value (repeatable when `multiple`), or a switch. */
export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

/** The flags of a command, by long name (without the dashes). */
export type FlagSpecs = Record<string, FlagSpec>;

/** The values read for each flag given: a string, a list of strings, or true. */
export type FlagValues<F extends FlagSpecs> = {
  [K in keyof F]?: F[K]["type"] extends "boolean"
    ? boolean
    : F[K]["multiple"] extends true
      ? string[]
      : string;
};

/** A command line, read. */
export interface ParsedArgs<F extends FlagSpecs> {
  /** Whether -h or --help was given. */
  help: boolean;
  values: FlagValues<F>;
  /** The words that are not flags (with `command`, only those before `--`). */
  positionals: string[];
  /** With `command`: the words after `--`, untouched; undefined when there is no `--`. */
  rest: string[] | undefined;
}

const HELP: FlagSpec = { type: "boolean", short: "h" };

/**
 * A word of the command line as an error shows it: on one line (a control character becomes `?`),
 * and cut after 40 characters. Only flag names and verbs are shown, never a flag's value.
 */
export const shownWord = (word: string): string => {
  const line = word.replace(/\p{Cc}/gu, "?");
  return line.length > 40 ? `${line.slice(0, 40)}…` : line;
};

/**
 * Read `argv` against `flags` (plus -h/--help). Throws UsageError for an unknown flag, a flag given
 * without its value (or whose value is the next flag), a switch given a value, and a flag that takes
 * one value given twice. A value that starts with `-` is given as `--flag=-value`. `--` ends the
 * flags: the words after it are positionals (a file named `-x`), or, with `command`, a command line
 * of its own, kept apart in `rest`.
 */
export function parseFlags<F extends FlagSpecs>(
  argv: string[],
  flags: F,
  options: { command?: boolean } = {},
): ParsedArgs<F> {
  const specs: FlagSpecs = { ...flags, help: HELP };
  // Not strict: parseArgs then throws nothing, and every token is judged here, with our words.
  const { tokens } = parseArgs({
    args: argv,
    options: specs,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const byName = new Map(Object.entries(specs));
  const values: Record<string, string | string[] | boolean> = Object.create(null);
  const positionals: string[] = [];
  let rest: string[] | undefined;
  let help = false;
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      if (options.command) rest = argv.slice(token.index + 1);
      else positionals.push(...argv.slice(token.index + 1));
      break;
    }
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    const spec = byName.get(token.name);
    const flag = shownWord(token.rawName);
    if (!spec) throw new UsageError(`unknown flag ${flag}`);
    if (spec.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`${flag} takes no value`);
      if (token.name === "help") help = true;
      else values[token.name] = true;
      continue;
    }
    const value = token.value;
    // `--port --json`: parseArgs took the next flag for the value; the value was forgotten.
    if (value === undefined || value === "" || (!token.inlineValue && value.startsWith("-")))
      throw new UsageError(`${flag} needs a value`);
    if (spec.multiple) {
      const list = values[token.name];
      values[token.name] = Array.isArray(list) ? [...list, value] : [value];
    } else if (token.name in values) {
      throw new UsageError(`${flag} is given more than once`);
    } else values[token.name] = value;
  }
  return { help, values: values as FlagValues<F>, positionals, rest };
}

/** Where a program writes: the process's streams, or a test's. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
}

/**
 * A command's arguments, or its exit status when there is nothing to run: 0 after `--help` (the
 * usage on stdout), 2 after a UsageError (`program: message`, a blank line and the usage on stderr).
 * Any other error is not caught.
 */
export async function readCommandLine<T>(
  program: string,
  usage: string,
  io: CliIo,
  read: () => T | Promise<T>,
): Promise<Exclude<T, { help: true }> | number> {
  let args: T;
  try {
    args = await read();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`${program}: ${error.message}\n\n${usage}\n`);
    return 2;
  }
  if (typeof args === "object" && args !== null && (args as { help?: unknown }).help === true) {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  return args as Exclude<T, { help: true }>;
}

/** A check of a flag's value, whose Error (the check's own words) becomes a UsageError. */
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** One of a few words, or a UsageError naming the flag and the words it takes. */
export function oneOf<W extends string>(value: string, words: readonly W[], flag: string): W {
  if ((words as readonly string[]).includes(value)) return value as W;
  throw new UsageError(`${flag} must be one of ${words.join(", ")}`);
}
