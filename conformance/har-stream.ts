// A HAR file read as a stream: the bytes of each `log.entries` element are cut out as they arrive and
// handed to JSON.parse one entry at a time, so memory holds one entry, not the file (a 1 GB recording
// is read in the memory of its largest entry). The scanner only finds where entries begin and end; every
// value that is used is parsed by JSON.parse.
import { JSON_CHAR } from "../src/json-scan.js";
import { InputError } from "./input-error.js";
import { MAX_RECORDING_NESTING } from "./json-bounds.js";

/** The largest HAR entry read: memory stays bounded in bytes whatever a file holds. */
export const MAX_ENTRY_BYTES = 256 * 1024 * 1024;

const { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA } = JSON_CHAR;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** One element of `log.entries`, as bytes, with its position (from 0). */
export interface RawEntry {
  index: number;
  bytes: Buffer;
}

/**
 * The raw elements of a HAR document's `log.entries`, read from `chunks` as they come. Throws
 * InputError (naming `file`) when the document ends early, is not an object or has no `log.entries`.
 */
export async function* harEntries(chunks: AsyncIterable<Buffer>, file: string): AsyncGenerator<RawEntry> {
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
  // The entry being cut out: its pieces so far, and where it started in the current chunk.
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
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
    const finish = (end: number): Buffer => {
      if (start >= 0 && end > start) pieces.push(chunk.subarray(start, end));
      const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
      pieces = [];
      pieceBytes = 0;
      capturing = false;
      start = -1;
      return bytes;
    };
    for (let i = 0; i < chunk.length; i++) {
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
        const bytes = finish(i);
        let end = bytes.length;
        while (end > 0 && isSpace(bytes[end - 1] as number)) end--;
        yield { index: index++, bytes: bytes.subarray(0, end) };
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
        if (capturing && !scalarEntry && inEntries()) yield { index: index++, bytes: finish(i + 1) };
      } else if (c === COMMA) {
        if (stack[top] === OPEN_OBJECT) expectKey[top] = true;
      }
    }
    if (capturing) {
      const piece = chunk.subarray(Math.max(0, start));
      pieces.push(piece);
      pieceBytes += piece.length;
      if (pieceBytes > MAX_ENTRY_BYTES)
        throw new InputError(`${file}: entry ${index}`, `is larger than ${MAX_ENTRY_BYTES} bytes`);
    }
  }
  if (!started || stack.length > 0 || inString)
    throw new InputError(
      file,
      "is not valid JSON: it ends too early (truncated?); a HAR file is one JSON document",
    );
  if (!sawEntries) throw new InputError(file, "is not a HAR file: log.entries is missing");
}
