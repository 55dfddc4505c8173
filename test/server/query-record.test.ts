// queryRecord() reads a query in one pass: a name repeated n times costs n steps, not n²/2 copies
// of its list; and the in-process adapter refuses a target longer than Node's parser takes (414).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fetchAdapter } from "../../src/server/fetch-adapter.js";
import { MAX_TARGET_BYTES, queryRecord } from "../../src/server/request-target.js";

/** What queryRecord must give: every name once, its values in order, one value alone as a string. */
function reference(query: string): [string, string | string[]][] {
  const params = new URLSearchParams(query);
  return [...new Set(params.keys())].map((name) => {
    const all = params.getAll(name);
    return [name, all.length === 1 ? (all[0] as string) : all];
  });
}

/**
 * The array elements that array iteration, `slice` and `concat` stepped over while `run` ran: what
 * copying a list into a new one costs, whichever way it is written (spread iterates; the others copy).
 */
function elementsCopied(run: () => void): number {
  const proto = Array.prototype as unknown as Record<PropertyKey, unknown>;
  const iterator = proto[Symbol.iterator] as (this: unknown[]) => Iterator<unknown>;
  const slice = proto.slice as (this: unknown[], ...args: unknown[]) => unknown[];
  const concat = proto.concat as (this: unknown[], ...args: unknown[]) => unknown[];
  let steps = 0;
  proto[Symbol.iterator] = function (this: unknown[]) {
    const inner = iterator.call(this);
    return {
      next: () => {
        steps++;
        return inner.next();
      },
      [Symbol.iterator]() {
        return this;
      },
    };
  };
  proto.slice = function (this: unknown[], ...args: unknown[]) {
    steps += this.length;
    return slice.apply(this, args);
  };
  proto.concat = function (this: unknown[], ...args: unknown[]) {
    steps += this.length;
    return concat.apply(this, args);
  };
  try {
    run();
  } finally {
    proto[Symbol.iterator] = iterator;
    proto.slice = slice;
    proto.concat = concat;
  }
  return steps;
}

describe("queryRecord", () => {
  it("gives every name's values in order, as URLSearchParams reads them", () => {
    const part = fc.tuple(
      fc.constantFrom("a", "b", "%61", "__proto__", "a+b", ""),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 40 }), fc.constantFrom("&", "&&"), (parts, join) => {
        const query = parts.map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join(join);
        const got = queryRecord(query);
        expect(Object.getPrototypeOf(got)).toBeNull();
        expect(Object.entries(got)).toEqual(reference(query));
      }),
      { numRuns: 300 },
    );
  });

  it("copies no list at each repeat of a name: its work grows with the query, not its square", () => {
    for (const n of [2_000, 8_000]) {
      const query = Array.from({ length: n }, () => "a").join("&");
      let got: Record<string, string | string[]> = {};
      const copied = elementsCopied(() => (got = queryRecord(query)));
      expect(got.a).toHaveLength(n);
      // A copy of the list at each repeat steps over n²/2 elements (2,000,000 at n = 2,000).
      expect(copied).toBeLessThan(10 * n);
    }
  });
});

describe("the in-process adapter's request target", () => {
  const fetch = fetchAdapter(
    async ({ target }) => ({
      answer: { status: 200, json: { names: Object.keys(queryRecord(target.query)) } },
    }),
    { errorBody: (status, message) => ({ status, message }) },
  );

  it("is answered up to 16 KiB, and refused with a 414 beyond, before it is parsed", async () => {
    const at = (length: number) => `http://x.test/q?${"a&".repeat(length).slice(0, length - 3)}`;
    const fits = await fetch(at(MAX_TARGET_BYTES));
    expect(fits.status).toBe(200);
    expect(new URL(at(MAX_TARGET_BYTES)).pathname.length + new URL(at(MAX_TARGET_BYTES)).search.length).toBe(
      MAX_TARGET_BYTES,
    );
    const over = await fetch(at(MAX_TARGET_BYTES + 1));
    expect(over.status).toBe(414);
    expect(await over.json()).toEqual({ status: 414, message: "The request target is longer than 16 KiB." });
    const repeated = await fetch(`http://x.test/q?${Array.from({ length: 20_000 }, () => "a").join("&")}`);
    expect(repeated.status).toBe(414);
  });
});
