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
  const scanner = new HarScanner(file, limit);
  let first = true;
  for await (let chunk of chunks) {
    if (first) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    yield* scanner.scan(chunk);
  }
  scanner.end();
}

/** The scan of one HAR document, chunk after chunk: where it is in the JSON, and the entry being cut out. */
class HarScanner {
  // Containers open around the current byte, and for objects whether a key is expected next.
  private readonly stack: number[] = [];
  private readonly expectKey: boolean[] = [];
  // The key of the member being read at depth 1 and 2 (`log`, then `entries`): the only keys that matter.
  private readonly keys: string[] = ["", "", ""];
  private inString = false;
  private escaped = false;
  private keyBytes: number[] | undefined;
  private sawEntries = false;
  private started = false;
  // The entry being cut out: its pieces so far (none once it is over the limit) and its size so far.
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  private oversize = false;
  private capturing = false;
  private scalarEntry = false;
  private index = 0;
  /** Where the entry being cut out starts in the current chunk: 0 when it began before it, -1 when none. */
  private start = -1;

  constructor(
    private readonly file: string,
    private readonly limit: number,
  ) {}

  /** The entries that end in this chunk; what is begun is kept for the next. */
  *scan(chunk: Buffer): Generator<RawEntry> {
    this.start = this.capturing ? 0 : -1;
    // Where the next quote and backslash are in this chunk: inside a string only they matter, and
    // memchr-speed search finds them (a body's text is most of a HAR's bytes).
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString && !this.escaped && this.keyBytes === undefined) {
        if (nextQuote < i) nextQuote = indexOrEnd(chunk, QUOTE, i);
        if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, BACKSLASH, i);
        i = Math.min(nextQuote, nextBackslash);
        if (i >= chunk.length) break;
      }
      const c = chunk[i] as number;
      if (this.inString) {
        this.stringByte(c);
        continue;
      }
      if (isSpace(c)) continue;
      if (!this.started && c !== OPEN_OBJECT)
        throw new InputError(this.file, "is not a HAR file: not a JSON object");
      if (this.started && this.stack.length === 0)
        throw new InputError(this.file, "is not valid JSON: there is more after the HAR document");
      // A scalar entry (null, a number) ends at the comma or bracket after it.
      if (this.scalarEntry && (c === COMMA || c === CLOSE_ARRAY)) yield this.scalarEnd(chunk, i);
      if (!this.capturing && this.inEntries() && c !== COMMA && c !== CLOSE_ARRAY) {
        this.capturing = true;
        this.start = i;
        // Anything but an object or array (a string, null, a number) ends at the comma or bracket after it.
        this.scalarEntry = c !== OPEN_OBJECT && c !== OPEN_ARRAY;
      }
      const entry = this.structure(c, chunk, i);
      if (entry) yield entry;
    }
    if (this.capturing) this.keepRest(chunk);
  }

  /** Throws unless the document ended whole, with `log.entries`. */
  end(): void {
    if (!this.started || this.stack.length > 0 || this.inString)
      throw new InputError(
        this.file,
        "is not valid JSON: it ends too early (truncated?); a HAR file is one JSON document",
      );
    if (!this.sawEntries) throw new InputError(this.file, "is not a HAR file: log.entries is missing");
  }

  private inEntries(): boolean {
    const { stack, keys } = this;
    return (
      stack.length === 3 &&
      stack[0] === OPEN_OBJECT &&
      stack[1] === OPEN_OBJECT &&
      stack[2] === OPEN_ARRAY &&
      keys[1] === "log" &&
      keys[2] === "entries"
    );
  }

  /** A byte inside a string: an escape, its end (a key's end names the member), or a key's byte. */
  private stringByte(c: number): void {
    if (this.escaped) this.escaped = false;
    else if (c === BACKSLASH) this.escaped = true;
    else if (c === QUOTE) {
      this.inString = false;
      if (this.keyBytes) {
        this.keys[this.stack.length] = Buffer.from(this.keyBytes).toString("utf8");
        this.keyBytes = undefined;
      }
    } else if (this.keyBytes && this.keyBytes.length < 16) this.keyBytes.push(c);
  }

  /** A byte of the JSON's structure outside strings; the entry it ends, if any. */
  private structure(c: number, chunk: Buffer, i: number): RawEntry | undefined {
    const { stack, expectKey } = this;
    const top = stack.length - 1;
    if (c === QUOTE) {
      this.inString = true;
      // A key of the top object or of `log`: remember it (only its first bytes; `log`/`entries` are short).
      if (stack[top] === OPEN_OBJECT && expectKey[top] && stack.length <= 2) this.keyBytes = [];
      if (stack[top] === OPEN_OBJECT && expectKey[top]) expectKey[top] = false;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      this.started = true;
      // The stack grows with nesting anywhere in the file, even outside the entries (never parsed).
      if (stack.length >= MAX_RECORDING_NESTING)
        throw new InputError(
          this.capturing ? `${this.file}: entry ${this.index}` : this.file,
          `nests more than ${MAX_RECORDING_NESTING} levels deep`,
        );
      stack.push(c);
      expectKey.push(c === OPEN_OBJECT);
      if (stack.length <= 2) this.keys[stack.length] = "";
      if (this.inEntries()) this.sawEntries = true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (stack.pop() !== (c === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY))
        throw new InputError(
          this.file,
          "is not valid JSON (brackets do not match); a HAR file is one JSON document",
        );
      expectKey.pop();
      if (this.capturing && !this.scalarEntry && this.inEntries()) return this.finish(chunk, i + 1);
    } else if (c === COMMA) {
      if (stack[top] === OPEN_OBJECT) expectKey[top] = true;
    }
    return undefined;
  }

  /** A scalar entry ended at `i`: its bytes without the blanks after it. */
  private scalarEnd(chunk: Buffer, i: number): RawEntry {
    this.scalarEntry = false;
    const entry = this.finish(chunk, i);
    let end = entry.bytes.length;
    while (end > 0 && isSpace(entry.bytes[end - 1] as number)) end--;
    return { ...entry, bytes: entry.bytes.subarray(0, end) };
  }

  /** The entry being cut out, ended at `end` of this chunk (kept whole, or only its size past the limit). */
  private finish(chunk: Buffer, end: number): RawEntry {
    const { start } = this;
    const last = start >= 0 && end > start ? end - start : 0;
    const size = this.pieceBytes + last;
    let entry: RawEntry;
    if (this.oversize || size > this.limit) {
      entry = { index: this.index++, bytes: EMPTY, tooLarge: size };
    } else {
      const pieces = this.pieces;
      if (last > 0) pieces.push(chunk.subarray(start, end));
      entry = {
        index: this.index++,
        bytes: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces),
      };
    }
    this.pieces = [];
    this.pieceBytes = 0;
    this.oversize = false;
    this.capturing = false;
    this.start = -1;
    return entry;
  }

  /** The rest of a chunk an entry runs past: kept, or, past the limit, only counted. */
  private keepRest(chunk: Buffer): void {
    const piece = chunk.subarray(Math.max(0, this.start));
    this.pieceBytes += piece.length;
    // Past the limit nothing more is kept, and what was kept is let go: only the size is counted on.
    if (this.pieceBytes > this.limit) {
      this.oversize = true;
      this.pieces = [];
    } else {
      this.pieces.push(piece);
    }
  }
}
