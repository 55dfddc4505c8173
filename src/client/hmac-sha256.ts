// HMAC-SHA256 (RFC 2104, FIPS 180-4) in plain JavaScript. Per request it costs a few microseconds where
// node:crypto's createHmac costs ten or more (a native object per call), WebCrypto is asynchronous, and it
// runs alike on every server runtime. The key's inner and outer pad states are computed once per key.
// Small loops stand where typed-array builtins (set, fill) would cost more than the work they do.

// The round constants and initial state are the first 32 bits of the fractional parts of the cube roots
// of the first 64 primes and the square roots of the first 8, as FIPS 180-4 defines them.
const K = new Int32Array(64);
const INITIAL = new Int32Array(8);
for (let n = 0, p = 2; n < 64; p++) {
  let prime = true;
  for (let d = 2; d * d <= p; d++) if (p % d === 0) prime = false;
  if (!prime) continue;
  // An Int32Array keeps the low 32 bits of the (whole) number stored.
  if (n < 8) INITIAL[n] = (p ** 0.5 % 1) * 2 ** 32;
  K[n++] = (p ** (1 / 3) % 1) * 2 ** 32;
}

// Working space, reused: hashing is synchronous, so no two calls ever share it at once. Reusing the
// message buffer also spares an allocation outside the JavaScript heap per hash.
const W = new Int32Array(64);
const STATE = new Int32Array(8);
let scratch = new Uint8Array(1024);

const rotate = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** STATE becomes `from` with the 64-byte blocks of `bytes` up to `end` folded in. */
function compress(from: Int32Array, bytes: Uint8Array, end: number): void {
  const w = W;
  const k = K;
  let s = from;
  for (let at = 0; at < end; at += 64) {
    for (let i = 0; i < 16; i++) {
      const j = at + i * 4;
      w[i] =
        ((bytes[j] as number) << 24) |
        ((bytes[j + 1] as number) << 16) |
        ((bytes[j + 2] as number) << 8) |
        (bytes[j + 3] as number);
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] as number;
      const y = w[i - 2] as number;
      w[i] =
        (((w[i - 16] as number) + (rotate(x, 7) ^ rotate(x, 18) ^ (x >>> 3))) | 0) +
        (((w[i - 7] as number) + (rotate(y, 17) ^ rotate(y, 19) ^ (y >>> 10))) | 0);
    }
    let a = s[0] as number;
    let b = s[1] as number;
    let c = s[2] as number;
    let d = s[3] as number;
    let e = s[4] as number;
    let f = s[5] as number;
    let g = s[6] as number;
    let h = s[7] as number;
    for (let i = 0; i < 64; i++) {
      const t1 =
        (((h + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25))) | 0) +
          ((((e & f) ^ (~e & g)) + (((k[i] as number) + (w[i] as number)) | 0)) | 0)) |
        0;
      const t2 = ((rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    STATE[0] = (s[0] as number) + a;
    STATE[1] = (s[1] as number) + b;
    STATE[2] = (s[2] as number) + c;
    STATE[3] = (s[3] as number) + d;
    STATE[4] = (s[4] as number) + e;
    STATE[5] = (s[5] as number) + f;
    STATE[6] = (s[6] as number) + g;
    STATE[7] = (s[7] as number) + h;
    s = STATE;
  }
}

const encoder = new TextEncoder();

/** STATE becomes the hash of `first` then `second` (text as UTF-8), continuing `from`, a state after `done` bytes. */
function digest(from: Int32Array, done: number, first: Uint8Array, second: Uint8Array | string): void {
  // Room for the message (text takes at most three UTF-8 bytes per UTF-16 code unit), a 0x80 byte,
  // zeros, then the total length in bits as a 64-bit big-endian number.
  const most = first.length + (typeof second === "string" ? second.length * 3 : second.length);
  const room = (most + 72) & ~63;
  // A large message's buffer is not kept after its request.
  const buffer = room > scratch.length ? new Uint8Array(room) : scratch;
  if (room <= 65_536) scratch = buffer;
  let length = first.length;
  for (let i = 0; i < length; i++) buffer[i] = first[i] as number;
  // Text is encoded straight into the buffer, as fetch sends it (a lone surrogate as U+FFFD).
  if (typeof second === "string") length += encoder.encodeInto(second, buffer.subarray(length)).written;
  else for (let i = 0; i < second.length; i++) buffer[length++] = second[i] as number;
  const end = (length + 72) & ~63;
  buffer[length] = 0x80;
  for (let i = length + 1; i < end; i++) buffer[i] = 0;
  const bits = (done + length) * 8;
  const high = Math.floor(bits / 2 ** 32);
  for (let i = 0; i < 4; i++) {
    buffer[end - 8 + i] = high >>> (24 - i * 8);
    buffer[end - 4 + i] = bits >>> (24 - i * 8);
  }
  compress(from, buffer, end);
}

/** STATE as 32 big-endian bytes, written into `out`. */
function writeState(out: Uint8Array): Uint8Array {
  for (let i = 0; i < 32; i++) out[i] = (STATE[i >> 2] as number) >>> (24 - (i & 3) * 8);
  return out;
}

// The inner digest, reused: the outer hash reads it at once.
const INNER = new Uint8Array(32);

/** The state after one block of the key XORed with `pad`. */
function keyed(key: Uint8Array, pad: number): Int32Array {
  const block = new Uint8Array(64).map((_, i) => (key[i] ?? 0) ^ pad);
  compress(INITIAL, block, 64);
  return STATE.slice();
}

const NOTHING = new Uint8Array(0);

/** An HMAC-SHA256 function of one key: the 32-byte digest of `first` followed by `second` (text as UTF-8). */
export function hmacSha256(key: Uint8Array): (first: Uint8Array, second?: Uint8Array | string) => Uint8Array {
  // A key longer than a block is replaced by its hash.
  if (key.length > 64) {
    digest(INITIAL, 0, key, NOTHING);
    key = writeState(new Uint8Array(32));
  }
  const inner = keyed(key, 0x36);
  const outer = keyed(key, 0x5c);
  return (first, second = NOTHING) => {
    digest(inner, 64, first, second);
    digest(outer, 64, writeState(INNER), NOTHING);
    return writeState(new Uint8Array(32));
  };
}
