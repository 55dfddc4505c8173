import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hmacSha256 } from "../../src/client/hmac-sha256.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const ascii = (text: string) => new TextEncoder().encode(text);
const repeat = (byte: number, n: number) => new Uint8Array(n).fill(byte);

describe("HMAC-SHA256 in JavaScript", () => {
  // RFC 4231, test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates its output).
  it.each([
    [
      "1",
      repeat(0x0b, 20),
      ascii("Hi There"),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    ],
    [
      "2",
      ascii("Jefe"),
      ascii("what do ya want for nothing?"),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ],
    [
      "3",
      repeat(0xaa, 20),
      repeat(0xdd, 50),
      "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
    ],
    [
      "4",
      Uint8Array.from({ length: 25 }, (_, i) => i + 1),
      repeat(0xcd, 50),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
    ],
    [
      "6",
      repeat(0xaa, 131),
      ascii("Test Using Larger Than Block-Size Key - Hash Key First"),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ],
    [
      "7",
      repeat(0xaa, 131),
      ascii(
        "This is a test using a larger than block-size key and a larger than block-size data. " +
          "The key needs to be hashed before being used by the HMAC algorithm.",
      ),
      "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
    ],
  ])("matches RFC 4231 test case %s", (_case, key, data, want) => {
    expect(hex(hmacSha256(key)(data))).toBe(want);
  });

  it("agrees with node:crypto across block boundaries, key lengths and split messages", () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      const sign = hmacSha256(key);
      for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000]) {
        const message = randomBytes(length);
        const cut = Math.floor(length / 3);
        const want = createHmac("sha256", key).update(message).digest("hex");
        expect(hex(sign(message.subarray(0, cut), message.subarray(cut))), `${keyLength}/${length}`).toBe(
          want,
        );
      }
    }
  });

  it("hashes text as the UTF-8 bytes fetch sends, across block boundaries", () => {
    const sign = hmacSha256(ascii("k"));
    const date = ascii("2026-11-22T09:30:00.000Z");
    // Two-, three- and four-byte characters, and a lone surrogate (sent as U+FFFD).
    for (const unit of ["a", "ë", "€", "😀", "\uD800"]) {
      for (const count of [0, 1, 13, 40, 41, 100, 5_000, 30_000]) {
        const text = `{"n":"${unit.repeat(count)}"}`;
        const want = createHmac("sha256", "k")
          .update(date)
          .update(new TextEncoder().encode(text))
          .digest("hex");
        expect(hex(sign(date, text)), `${JSON.stringify(unit)} × ${count}`).toBe(want);
      }
    }
  });

  it("keeps giving the same answer when reused, after a large message", () => {
    const sign = hmacSha256(ascii("k"));
    const small = ascii("2026-11-22T09:30:00.000Z");
    const before = hex(sign(small));
    sign(new Uint8Array(100_000));
    expect(hex(sign(small))).toBe(before);
    expect(before).toBe(createHmac("sha256", "k").update(small).digest("hex"));
  });
});
