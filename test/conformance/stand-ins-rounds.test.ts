// A value with no letter and no digit (punctuation, spaces, symbols) is its own stand-in: nothing in it
// could be changed, so no keyed round is computed for it.
import * as crypto from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { StandIns } from "../../conformance/findings/stand-ins.js";

vi.mock("node:crypto", async (original) => {
  const module = await original<typeof import("node:crypto")>();
  return { ...module, createHmac: vi.fn(module.createHmac) };
});

describe("a stand-in of a value without a letter or a digit", () => {
  it.each(["", "-", " / ", "--::..", "→ ✓ ★"])("is the value itself, made without a round (%j)", (value) => {
    const standIns = new StandIns(Buffer.alloc(32, 7));
    vi.mocked(crypto.createHmac).mockClear();
    expect(standIns.text(value)).toBe(value);
    expect(crypto.createHmac).not.toHaveBeenCalled();
  });

  it("is still made for a value with a letter or a digit", () => {
    const standIns = new StandIns(Buffer.alloc(32, 7));
    vi.mocked(crypto.createHmac).mockClear();
    expect(standIns.text("a-1")).not.toBe("a-1");
    expect(crypto.createHmac).toHaveBeenCalled();
  });
});
