// --state FILE: the sandbox's records, receivers, pending deliveries and timers kept across restarts.
// Written atomically (a temporary file beside it, flushed, then renamed over it) with a digest of its
// contents, so that a torn or edited file is refused with a clear message, never silently emptied.
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { exceedsJsonLimits } from "../../src/json-scan.js";
import { MAX_KEPT_BYTES } from "./byte-budget.js";
import type { Sandbox } from "../sandbox.js";
import type { StateData } from "./data.js";
import { MAX_STATE_DEPTH, stateProblem } from "./shape.js";
import type { Json } from "../../src/contract/json.js";

/**
 * The largest state file read: the sandbox writes at most its byte budget (MAX_KEPT_BYTES, 64 MiB,
 * counted as the state holds it) and its receivers (under 20 MiB); a larger file is not one it
 * wrote, and is refused unread.
 */
export const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Nesting and value count of the state a file may hold: the sandbox's records nest about a dozen
 * levels, and a value takes at least two bytes of JSON (a digit and a comma), so what the byte
 * budget and the receivers let the sandbox write holds fewer than this.
 */
const STATE_JSON_LIMITS = {
  maxDepth: MAX_STATE_DEPTH,
  maxValues: Math.ceil((MAX_KEPT_BYTES + 20 * 1024 * 1024) / 2),
};

const FORMAT = "idv-sandbox-state";
const VERSION = 1;

// Records are JSON the contract describes.

export type { StateData } from "./data.js";

/** A state file that cannot be used; the message says which file and why. */
export class StateFileError extends Error {
  constructor(file: string, why: string) {
    super(`state file ${file} ${why}; the sandbox will not start over it (move it away to start empty)`);
    this.name = "StateFileError";
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

/** Everything the sandbox holds, as JSON-ready data. */
export function snapshot(sandbox: Sandbox): StateData {
  return sandbox.toState();
}

/** Write the state atomically: a temporary file, flushed to disk, renamed over the old one. */
export function writeState(file: string, sandbox: Sandbox): void {
  const data = JSON.stringify(snapshot(sandbox));
  const text = `${JSON.stringify({ format: FORMAT, version: VERSION, sha256: digest(data) })}\n${data}\n`;
  const temp = `${file}.${process.pid}.tmp`;
  // Created anew, never opened through whatever is at that name: a symlink planted there would
  // otherwise receive the state (records' personal data, receivers' credentials).
  try {
    unlinkSync(temp);
  } catch {
    // Nothing left over from an earlier run.
  }
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone.
    }
    throw error;
  }
}

/** The longest first line read as the state header (it holds a format, a version and a digest). */
const MAX_HEADER_LENGTH = 1024;

/** Read a state file; undefined when it does not exist; a StateFileError when it is torn or not one. */
export function readState(file: string): StateData | undefined {
  let text: string;
  let fd: number;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer, forever, before
    // the sandbox listens. fstat below then refuses whatever is not a regular file.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(file, "cannot be read");
  }
  try {
    // Measured on the descriptor that is read; the text's length is checked again below, since the
    // file may still grow before the read ends.
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new StateFileError(file, "is not a regular file");
    if (stat.size > MAX_STATE_FILE_BYTES)
      throw new StateFileError(file, `is larger than ${MAX_STATE_FILE_BYTES / 1024 / 1024} MiB`);
    text = readFileSync(fd, "utf8");
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(file, "cannot be read");
  } finally {
    closeSync(fd);
  }
  if (text.length > MAX_STATE_FILE_BYTES)
    throw new StateFileError(file, `is larger than ${MAX_STATE_FILE_BYTES / 1024 / 1024} MiB`);
  const newline = text.indexOf("\n");
  // The header is a few dozen bytes: a longer first line is not one, and is never parsed.
  if (newline < 0 || newline > MAX_HEADER_LENGTH)
    throw new StateFileError(file, "is not a sandbox state file (its first line is not the state header)");
  let header: Json;
  try {
    header = JSON.parse(text.slice(0, newline));
  } catch {
    throw new StateFileError(file, "is not a sandbox state file (its first line is not the state header)");
  }
  if (header?.format !== FORMAT) throw new StateFileError(file, "is not a sandbox state file");
  if (header.version !== VERSION)
    throw new StateFileError(file, `has version ${String(header.version).slice(0, 20)}, not ${VERSION}`);
  const data = text.slice(newline + 1).replace(/\n$/, "");
  if (digest(data) !== header.sha256)
    throw new StateFileError(
      file,
      "is torn or was edited (its contents do not match the digest in its header)",
    );
  // Measured before JSON.parse builds it: 256 MiB of `[[[[` would take some 10 GB of heap to parse.
  const over = exceedsJsonLimits(data, STATE_JSON_LIMITS);
  if (over === "depth")
    throw new StateFileError(file, `nests deeper than ${STATE_JSON_LIMITS.maxDepth} levels`);
  if (over === "values")
    throw new StateFileError(file, `holds more than ${STATE_JSON_LIMITS.maxValues} values`);
  let state: unknown;
  try {
    state = JSON.parse(data);
  } catch {
    throw new StateFileError(file, "is torn (its contents are not JSON)");
  }
  const problem = stateProblem(state);
  if (problem) throw new StateFileError(file, `holds state the sandbox cannot restore (at ${problem})`);
  return state as StateData;
}

/** Put saved state back into a fresh sandbox. */
export function restoreState(sandbox: Sandbox, data: StateData): void {
  sandbox.restore(data);
}

/**
 * Save the state after changes: at most every `intervalMs`, or ten times as long as the last save
 * took (a large state is written whole, synchronously: this keeps that under a tenth of the time),
 * and once more on `flush`.
 */
export function stateSaver(file: string, sandbox: Sandbox, intervalMs = 200) {
  let timer: NodeJS.Timeout | undefined;
  let lastSaveMs = 0;
  const save = () => {
    timer = undefined;
    const started = performance.now();
    writeState(file, sandbox);
    lastSaveMs = performance.now() - started;
  };
  return {
    changed(): void {
      if (timer) return;
      timer = setTimeout(
        () => {
          try {
            save();
          } catch (error) {
            console.error(
              `sandbox: could not save the state: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
            );
          }
        },
        Math.max(intervalMs, lastSaveMs * 10),
      );
      timer.unref();
    },
    flush(): void {
      if (timer) clearTimeout(timer);
      save();
    },
  };
}
