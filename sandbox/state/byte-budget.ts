// One byte budget for everything the sandbox keeps: records (with their EDD assets' metadata),
// deliveries, uploaded files' bytes, and the timers each of them holds. Each part keeps its own
// entries oldest first; past the budget the oldest entry of all parts goes first, whichever part
// holds it. What is counted is what the --state file holds of it (its JSON's UTF-8 bytes), so a
// sandbox within its budget always writes a state file it can start from again.

/** A part of the sandbox's memory: its entries in the order they were made, each with a sequence number. */
export interface BudgetPart {
  /** The sequence number of its oldest entry, or undefined when it holds none. */
  oldestSeq(): number | undefined;
  /** Forget its oldest entry (releasing its bytes with `charge`). */
  forgetOldest(): void;
}

/** Bytes the sandbox keeps at most, all parts together (records, deliveries, uploads, timers). */
export const MAX_KEPT_BYTES = 64 * 1024 * 1024;

/**
 * What one pending timer adds to the state file (`{"id":…,"at":…,"kind":…,"ref":…}` with a
 * transaction id as ref is about 110 bytes): counted with the record or delivery that holds it.
 */
export const TIMER_BYTES = 128;

/** The UTF-8 bytes of a value's JSON: what the state file holds of it. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");

/** Characters JSON.stringify writes otherwise than as themselves, but for `"` and `\`: controls, surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const WRITTEN_ESCAPED = /[\u0000-\u001f\ud800-\udfff]/;

/** How many times `char` occurs in `text`. */
function occurrences(text: string, char: string): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/**
 * jsonBytes(text) for a string, without writing its JSON (a delivery's body is a JSON text of its own,
 * kilobytes of `"` to escape): one with no control character and no surrogate is written as it is,
 * quoted, with a `\` before each `"` and `\`. Any other is written and measured.
 */
export function jsonStringBytes(text: string): number {
  if (WRITTEN_ESCAPED.test(text)) return jsonBytes(text);
  return Buffer.byteLength(text, "utf8") + 2 + occurrences(text, '"') + occurrences(text, "\\");
}

export class ByteBudget {
  private seq = 0;
  private usedBytes = 0;
  private readonly parts: BudgetPart[] = [];

  constructor(readonly maxBytes: number = MAX_KEPT_BYTES) {}

  /** Bytes counted now. */
  get used(): number {
    return this.usedBytes;
  }

  /** Add a part whose entries compete for the budget. */
  register(part: BudgetPart): void {
    this.parts.push(part);
  }

  /** The sequence number of a new entry: the order in which entries of all parts were made. */
  next(): number {
    return this.seq++;
  }

  /** Count `delta` bytes more (or fewer). */
  charge(delta: number): void {
    this.usedBytes += delta;
  }

  /** Forget the oldest entries, of whichever part, until the bytes counted are within the budget. */
  enforce(): void {
    while (this.usedBytes > this.maxBytes) {
      let oldest: BudgetPart | undefined;
      let oldestSeq = Infinity;
      for (const part of this.parts) {
        const seq = part.oldestSeq();
        if (seq !== undefined && seq < oldestSeq) {
          oldest = part;
          oldestSeq = seq;
        }
      }
      if (!oldest) return;
      oldest.forgetOldest();
    }
  }
}
