// The streaming HAR reader cuts out exactly the elements of log.entries, wherever the chunks split.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { harEntries } from "../../conformance/traffic/har-stream.js";
import { InputError } from "../../conformance/traffic/input-error.js";
import { hostileJsonValue } from "../support/hostile.js";

/** Bytes split into chunks at the given cut points. */
async function* chunked(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
  yield bytes.subarray(at);
}

async function entriesOf(text: string | Buffer, cuts: number[] = [], limit?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const e of harEntries(chunked(Buffer.from(text), cuts), "t.har", limit))
    out.push(
      e.tooLarge === undefined ? e.bytes.toString() : `(${e.tooLarge} bytes, not kept: ${e.bytes.length})`,
    );
  return out;
}

const failure = async (text: string): Promise<string> => {
  try {
    await entriesOf(text);
  } catch (error) {
    if (error instanceof InputError) return error.message;
    throw error;
  }
  return "no error";
};

describe("harEntries", () => {
  it("gives each element of log.entries, objects and scalars, skipping look-alikes elsewhere", async () => {
    const text = `\ufeff{"x": {"entries": [1]}, "log": {"pages": [{"entries": [2]}], "entries": [
      {"a": "]}\\"[{", "log": {"entries": [3]}}, null, "s,]", 42 ,{}], "comment": "entries"}}`;
    expect(await entriesOf(text)).toEqual([
      '{"a": "]}\\"[{", "log": {"entries": [3]}}',
      "null",
      '"s,]"',
      "42",
      "{}",
    ]);
  });

  it("says what is wrong with a document that is not a whole HAR", async () => {
    expect(await failure('{"log": {"entries": [{"a": 1}')).toMatch(/ends too early/);
    expect(await failure('{"log": {"entries": ["abc')).toMatch(/ends too early/);
    expect(await failure('[{"log": {}}]')).toMatch(/not a JSON object/);
    expect(await failure('{"log": {"pages": []}}')).toMatch(/log\.entries is missing/);
    expect(await failure('{"log": {"entries": []}} {}')).toMatch(/more after the HAR document/);
    expect(await failure('{"log": {"entries": [}]}}')).toMatch(/brackets do not match/);
  });

  it("cuts the same entries whatever the chunks (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileJsonValue(3), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (entries, cuts) => {
          const text = JSON.stringify({ log: { version: "1.2", entries, after: { entries: [0] } } });
          const got = await entriesOf(text, cuts);
          expect(got.map((e) => JSON.stringify(JSON.parse(e)))).toEqual(
            entries.map((e) => JSON.stringify(e)),
          );
        },
      ),
      { numRuns: 40, seed: 3 },
    );
  });
});

describe("an entry larger than the limit", () => {
  it("is given as its size alone, and the entries around it as they are", async () => {
    const big = `{"response": {"content": {"text": "${"x".repeat(100)}"}}}`;
    const text = `{"log": {"entries": [{"a": 1}, ${big}, "${"s".repeat(60)}", {"b": 2}]}}`;
    expect(await entriesOf(text, [], 50)).toEqual([
      '{"a": 1}',
      `(${big.length} bytes, not kept: 0)`,
      "(62 bytes, not kept: 0)",
      '{"b": 2}',
    ]);
    // An entry of exactly the limit is read.
    expect(await entriesOf(`{"log": {"entries": [${big}]}}`, [], big.length)).toEqual([big]);
  });

  it("is measured and dropped the same whatever the chunks (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileJsonValue(3), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 80 }),
        async (entries, cuts, limit) => {
          const text = JSON.stringify({ log: { entries } });
          const got = await entriesOf(text, cuts, limit);
          expect(got).toEqual(
            entries.map((e) => {
              const bytes = Buffer.byteLength(JSON.stringify(e));
              return bytes > limit ? `(${bytes} bytes, not kept: 0)` : JSON.stringify(e);
            }),
          );
        },
      ),
      { numRuns: 60, seed: 20 },
    );
  });
});
