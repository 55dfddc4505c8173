// A HAR file read as a stream: the bytes of each `log.entries` element are cut out as they arrive and
// handed to JSON.parse one entry at a time, so memory holds one entry, not the file (a 1 GB recording
// is read in the memory of its largest entry). The scanner only finds where entries begin and end; every
// value that is used is parsed by JSON.parse. An entry larger than the limit is not kept: its bytes are
// dropped as they pass once the limit is crossed, and it is given as a size alone.
import { JSON_CHAR } from "../../src/json-scan.js";
import { InputError } from "./input-error.js";
import { MAX_RECORDING_NESTING } from "./json-bounds.js";

/**
 * The largest HAR entry (or NDJSON line) read. Each costs several times its size while it is parsed
 * and checked (its bytes, its text, the parsed entry, a body's value), and `--jobs` multiplies that: a
 * larger one is reported, not read.
 */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/**
 * The entry limit in force: MAX_ENTRY_BYTES, or a lower one from IDV_CONFORMANCE_MAX_ENTRY_BYTES (digits;
 * a small runner, or a test, may lower it; it is never raised).
 */
export function entryLimit(): number {
  const text = process.env.IDV_CONFORMANCE_MAX_ENTRY_BYTES;
  if (text === undefined || !/^[0-9]{1,15}$/.test(text)) return MAX_ENTRY_BYTES;
  const value = Number(text);
  return value >= 1 && value < MAX_ENTRY_BYTES ? value : MAX_ENTRY_BYTES;
}

const { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA } = JSON_CHAR;

const EMPTY = Buffer.alloc(0);

/** The position of `byte` in `chunk` from `from`, or the chunk's length when there is none. */
function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** One element of `log.entries`, as bytes, with its position (from 0). */
export interface RawEntry {
  index: number;
  /** The entry's bytes; empty when it was larger than the limit. */
  bytes: Buffer;
  /** The entry's size in bytes, when it was larger than the limit (then it was not kept). */
  tooLarge?: number;
}

/**
 * The raw elements of a HAR document's `log.entries`, read from `chunks` as they come. Throws
 * InputError (naming `file`) when the document ends early, is not an object or has no `log.entries`.
 */
export async function* harEntries(
  chunks: AsyncIterable<Buffer>,
  file: string,
  limit: number = entryLimit(),
): AsyncGenerator<RawEntry> {
  // Containers open around the current byte, and for objects whether a key is expected next.
  const stack: number[] = [];
  const expectKey: boolean[] = [];
  // The key of the member being read at depth 1 and 2 (`log`, then `entries`): the only keys that matter.
  const keys: string[] = ["", "", ""];
  let inString = false;
  let escaped = false;
  let keyBytes: number[] | undefined;
  let sawEntries = false;
  let started = false;
  let first = true;
  // The entry being cut out: its pieces so far (none once it is over the limit) and its size so far.
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let oversize = false;
  let capturing = false;
  let scalarEntry = false;
  let index = 0;

  const inEntries = () =>
    stack.length === 3 &&
    stack[0] === OPEN_OBJECT &&
    stack[1] === OPEN_OBJECT &&
    stack[2] === OPEN_ARRAY &&
    keys[1] === "log" &&
    keys[2] === "entries";

  for await (let chunk of chunks) {
    if (first) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    let start = capturing ? 0 : -1;
    const finish = (end: number): RawEntry => {
      const last = start >= 0 && end > start ? end - start : 0;
      const size = pieceBytes + last;
      let entry: RawEntry;
      if (oversize || size > limit) {
        entry = { index: index++, bytes: EMPTY, tooLarge: size };
      } else {
        if (last > 0) pieces.push(chunk.subarray(start, end));
        entry = {
          index: index++,
          bytes: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces),
        };
      }
      pieces = [];
      pieceBytes = 0;
      oversize = false;
      capturing = false;
      start = -1;
      return entry;
    };
    // Where the next quote and backslash are in this chunk: inside a string only they matter, and
    // memchr-speed search finds them (a body's text is most of a HAR's bytes).
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (inString && !escaped && keyBytes === undefined) {
        if (nextQuote < i) nextQuote = indexOrEnd(chunk, QUOTE, i);
        if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, BACKSLASH, i);
        i = Math.min(nextQuote, nextBackslash);
        if (i >= chunk.length) break;
      }
      const c = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (keyBytes) {
            keys[stack.length] = Buffer.from(keyBytes).toString("utf8");
            keyBytes = undefined;
          }
        } else if (keyBytes && keyBytes.length < 16) keyBytes.push(c);
        continue;
      }
      if (isSpace(c)) continue;
      if (!started && c !== OPEN_OBJECT) throw new InputError(file, "is not a HAR file: not a JSON object");
      if (started && stack.length === 0)
        throw new InputError(file, "is not valid JSON: there is more after the HAR document");
      // A scalar entry (null, a number) ends at the comma or bracket after it.
      if (scalarEntry && (c === COMMA || c === CLOSE_ARRAY)) {
        scalarEntry = false;
        const entry = finish(i);
        let end = entry.bytes.length;
        while (end > 0 && isSpace(entry.bytes[end - 1] as number)) end--;
        yield { ...entry, bytes: entry.bytes.subarray(0, end) };
      }
      const top = stack.length - 1;
      if (!capturing && inEntries() && c !== COMMA && c !== CLOSE_ARRAY) {
        capturing = true;
        start = i;
        // Anything but an object or array (a string, null, a number) ends at the comma or bracket after it.
        scalarEntry = c !== OPEN_OBJECT && c !== OPEN_ARRAY;
      }
      if (c === QUOTE) {
        inString = true;
        // A key of the top object or of `log`: remember it (only its first bytes; `log`/`entries` are short).
        if (stack[top] === OPEN_OBJECT && expectKey[top] && stack.length <= 2) keyBytes = [];
        if (stack[top] === OPEN_OBJECT && expectKey[top]) expectKey[top] = false;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        started = true;
        // The stack grows with nesting anywhere in the file, even outside the entries (never parsed).
        if (stack.length >= MAX_RECORDING_NESTING)
          throw new InputError(
            capturing ? `${file}: entry ${index}` : file,
            `nests more than ${MAX_RECORDING_NESTING} levels deep`,
          );
        stack.push(c);
        expectKey.push(c === OPEN_OBJECT);
        if (stack.length <= 2) keys[stack.length] = "";
        if (inEntries()) sawEntries = true;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (stack.pop() !== (c === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY))
          throw new InputError(
            file,
            "is not valid JSON (brackets do not match); a HAR file is one JSON document",
          );
        expectKey.pop();
        if (capturing && !scalarEntry && inEntries()) yield finish(i + 1);
      } else if (c === COMMA) {
        if (stack[top] === OPEN_OBJECT) expectKey[top] = true;
      }
    }
    if (capturing) {
      const piece = chunk.subarray(Math.max(0, start));
      pieceBytes += piece.length;
      // Past the limit nothing more is kept, and what was kept is let go: only the size is counted on.
      if (pieceBytes > limit) {
        oversize = true;
        pieces = [];
      } else {
        pieces.push(piece);
      }
    }
  }
  if (!started || stack.length > 0 || inString)
    throw new InputError(
      file,
      "is not valid JSON: it ends too early (truncated?); a HAR file is one JSON document",
    );
  if (!sawEntries) throw new InputError(file, "is not a HAR file: log.entries is missing");
}
