// Stand-ins for recorded values. A recording must hold no personal value and no credential, yet check
// as it ran: so a value is not blanked but replaced by one of the same shape. Each letter becomes a
// letter of the same case (a hex letter a hex letter), each digit a digit (a leading one zero or not as
// it was), punctuation and spaces stay; a valid calendar date or timestamp becomes another valid one.
// The choices come from HMAC-SHA-256 under a key drawn afresh for each recording and never written
// (it keys an AES-CTR keystream per value, so a long value is cheap):
// the same value gives the same stand-in within a recording (an id echoed back, or used in a later
// path, still links), and nothing links or reverses across recordings.
import { createCipheriv, createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";

/** Tries, with the round in the HMAC's input, before a stand-in equal to its value is accepted. */
const ROUNDS = 8;
/** Values kept in the memo; past it stand-ins are recomputed (the same, as HMAC is deterministic). */
const MEMO_LIMIT = 4096;
/** Values longer than this are not kept in the memo: it is bounded in bytes too. */
const MEMO_VALUE_LENGTH = 256;

const LOWER_HEX = "abcdef";
const LOWER_REST = "ghijklmnopqrstuvwxyz";
const UPPER_HEX = "ABCDEF";
const UPPER_REST = "GHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
const NONZERO = "123456789";

/** A calendar date, optionally followed by a time of day, as RFC 3339 writes them. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:([Tt ])(\d{2}):(\d{2}):(\d{2})(\.\d+)?)?(.*)$/s;
/** A day, month and year with slashes, dots or dashes between (DD/MM/YYYY, MM/DD/YYYY). */
const DAY_MONTH_YEAR = /^(\d{2})([/.-])(\d{2})\2(\d{4})$/;
/**
 * A URL's scheme: kept, as it says nothing of a person (`https://` may be what a pattern asks). Only
 * before `//`, or one of a few that take none: `Smith: …` in free text is not a scheme.
 */
const SCHEME = /^(?:[A-Za-z][A-Za-z0-9+.-]{0,15}:\/\/|(?:mailto|tel|urn|data):)/i;
/** A UTC offset that RFC 3339 allows: kept, as it says nothing of a person. */
const OFFSET = /^(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)?$/;

/** A letter or a digit of any script: a value with none is its own stand-in (nothing in it is changed). */
const LETTER_OR_DIGIT = /[\p{L}\p{Nd}]/u;

/** Keystream bytes drawn at a time. */
const CHUNK = 4096;
const ZEROS = Buffer.alloc(CHUNK);

/**
 * A source of pseudo-random numbers for one value: AES-256-CTR's keystream under HMAC-SHA-256(key,
 * round and value), so a long value costs one HMAC and a cipher pass, not an HMAC per character.
 */
class Stream {
  private readonly cipher: ReturnType<typeof createCipheriv>;
  private bytes = Buffer.alloc(0);
  private at = 0;

  constructor(key: KeyObject, round: number, value: string) {
    const derived = createHmac("sha256", key).update(`${round}\u0000`).update(value).digest();
    this.cipher = createCipheriv("aes-256-ctr", derived, Buffer.alloc(16));
  }

  /** A number in [0, n). The bias of 16 bits modulo n < 64 does not matter for a stand-in. */
  below(n: number): number {
    if (this.at + 2 > this.bytes.length) {
      this.bytes = this.cipher.update(ZEROS);
      this.at = 0;
    }
    const x = this.bytes.readUInt16BE(this.at);
    this.at += 2;
    return x % n;
  }

  pick(alphabet: string): string {
    return alphabet[this.below(alphabet.length)] as string;
  }
}

/** Whether a year, month and day name a day of the proleptic Gregorian calendar. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : days);
}

const two = (n: number): string => String(n).padStart(2, "0");

/** The classes a letter or digit of another script keeps: upper case, lower case, other letters, digits. */
const CLASSES = [/\p{Lu}/u, /\p{Ll}/u, /\p{L}/u, /\p{Nd}/u];
/** Candidates by block and class, found once (at most 64 code points each; blocks are few in practice). */
const candidatesMemo = new Map<string, string[]>();

/** The code points of a block of 64 that are of a class. */
function sameClass(base: number, cls: RegExp): string[] {
  const key = `${base}:${cls.source}`;
  let found = candidatesMemo.get(key);
  if (found === undefined) {
    found = [];
    for (let p = base; p < base + 64; p++) {
      const candidate = String.fromCodePoint(p);
      if (cls.test(candidate)) found.push(candidate);
    }
    if (candidatesMemo.size < 4096) candidatesMemo.set(key, found);
  }
  return found;
}

/** Makes the stand-ins of one recording. */
export class StandIns {
  // A KeyObject, made once: Node 24 takes a slower path for an HMAC keyed by a Buffer each time.
  private readonly key: KeyObject;
  private readonly memo = new Map<string, string>();

  /** @param key the HMAC key; a fresh random one unless a test fixes it */
  constructor(key: Buffer = randomBytes(32)) {
    this.key = createSecretKey(key);
  }

  /** The stand-in of a value: the same shape, never the value itself when it holds a letter or digit. */
  text(value: string): string {
    const known = this.memo.get(value);
    if (known !== undefined) return known;
    // Every round would give the value back: no round is run.
    if (!LETTER_OR_DIGIT.test(value)) return value;
    let out = value;
    for (let round = 0; round < ROUNDS && out === value; round++) out = this.make(value, round);
    if (this.memo.size < MEMO_LIMIT && value.length <= MEMO_VALUE_LENGTH) this.memo.set(value, out);
    return out;
  }

  private make(value: string, round: number): string {
    const stream = new Stream(this.key, round, value);
    const dated = this.dateTime(value, stream) ?? this.dayMonthYear(value, stream);
    if (dated !== undefined) return dated;
    const scheme = SCHEME.exec(value)?.[0] ?? "";
    return scheme + this.chars(value.slice(scheme.length), stream);
  }

  /** A valid DD/MM/YYYY (or MM/DD/YYYY) date for one; day and month both 01 to 12, so either reading holds. */
  private dayMonthYear(value: string, stream: Stream): string | undefined {
    const m = DAY_MONTH_YEAR.exec(value);
    if (!m) return undefined;
    const [, a, sep, b, y] = m;
    const year = Number(y);
    if (!isCalendarDate(year, Number(b), Number(a)) && !isCalendarDate(year, Number(a), Number(b)))
      return undefined;
    return `${two(1 + stream.below(12))}${sep}${two(1 + stream.below(12))}${sep}${1950 + stream.below(70)}`;
  }

  /** A valid date (and time) for a valid one; undefined when the value is not one. */
  private dateTime(value: string, stream: Stream): string | undefined {
    const m = DATE_TIME.exec(value);
    if (!m) return undefined;
    const [, y, mo, d, sep, h, mi, s, fraction, tail = ""] = m;
    if (!isCalendarDate(Number(y), Number(mo), Number(d))) return undefined;
    if (sep !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60)) return undefined;
    // A date alone (or a timestamp) may go on with text of its own; only a zone is kept as it is.
    if (sep !== undefined ? !OFFSET.test(tail) : tail !== "") return undefined;
    const year = 1950 + stream.below(70);
    const month = 1 + stream.below(12);
    const day = 1 + stream.below(28);
    let out = `${year}-${two(month)}-${two(day)}`;
    if (sep !== undefined) {
      const digits = fraction ? fraction.slice(1).replace(/\d/g, () => stream.pick(DIGITS)) : undefined;
      out += `${sep}${two(stream.below(24))}:${two(stream.below(60))}:${two(stream.below(60))}`;
      out += digits !== undefined ? `.${digits}` : "";
    }
    return out + tail;
  }

  /** Each letter and digit replaced within its class; everything else kept. */
  private chars(value: string, stream: Stream): string {
    let out = "";
    let previousDigit = false;
    for (const c of value) {
      const isDigit = c >= "0" && c <= "9";
      if (isDigit) out += previousDigit ? stream.pick(DIGITS) : c === "0" ? "0" : stream.pick(NONZERO);
      else if (c >= "a" && c <= "z") out += stream.pick(c <= "f" ? LOWER_HEX : LOWER_REST);
      else if (c >= "A" && c <= "Z") out += stream.pick(c <= "F" ? UPPER_HEX : UPPER_REST);
      else if (c.charCodeAt(0) < 0x80) out += c;
      else out += this.nonAscii(c, stream);
      previousDigit = isDigit;
    }
    return out;
  }

  /** A letter or digit of another script: one of the same class from its block of 64 code points. */
  private nonAscii(c: string, stream: Stream): string {
    const cls = CLASSES.find((re) => re.test(c));
    // Symbols, marks and emoji say nothing of a person alone; letters and digits might.
    if (!cls) return c;
    const cp = c.codePointAt(0) as number;
    const candidates = sameClass(cp - (cp % 64), cls);
    return candidates[stream.below(candidates.length)] ?? c;
  }
}
