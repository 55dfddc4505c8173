// The cause chain of a network failure is walked by one helper, bounded in links: the code, the
// parser's failure and the scrubbing of its bytes all look at the same links.
import { describe, expect, it } from "vitest";
import { asConnectionError, causeChain, IdvConnectionError } from "../../src/client/connection.js";

/** An error whose chain has `depth` links above `last`. */
function chain(depth: number, last: object): Error {
  let at: object = last;
  for (let i = 0; i < depth; i++) at = new Error(`link ${i}`, { cause: at });
  return at as Error;
}

describe("a cause chain", () => {
  it("gives the error and its causes, at most four links, stopping at a cause that is not an object", () => {
    expect([...causeChain("text")]).toEqual([]);
    expect([...causeChain(chain(1, { code: "ECONNREFUSED" }))]).toHaveLength(2);
    expect([...causeChain(new Error("x", { cause: "not an object" }))]).toHaveLength(1);
    expect([...causeChain(chain(10, {}))]).toHaveLength(4);
  });

  it("ends on a chain that loops", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect([...causeChain(a)]).toEqual([a, b, a, b]);
  });

  it("is the one the code and the parser's failure are read from", () => {
    const parser = Object.assign(new Error("bad"), { name: "HTTPParserError", data: "CANARY bytes" });
    const near = asConnectionError(new TypeError("fetch failed", { cause: parser }), "http://h:1/", "call");
    expect(near).toBeInstanceOf(IdvConnectionError);
    expect((near as Error).message).toContain("the answer is not valid HTTP");
    expect(parser).not.toHaveProperty("data");
    // Past the fourth link nothing is read, nor scrubbed.
    const deep = Object.assign(new Error("bad"), { name: "HTTPParserError", data: "kept", code: "HPE_X" });
    const far = asConnectionError(
      new TypeError("fetch failed", { cause: chain(4, deep) }),
      "http://h:1/",
      "call",
    );
    expect((far as IdvConnectionError).code).toBeUndefined();
    expect((far as Error).message).toContain("network error");
    expect(deep).toHaveProperty("data", "kept");
  });
});
