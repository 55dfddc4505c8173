// How every CLI of the package says it could not start: one line on stderr, a port in use named
// with its host and how to move it, and exit 2 (the CLIs' own tests spawn them with a busy port).
import { afterEach, describe, expect, it, vi } from "vitest";
import { startFailed } from "../../src/server/index.js";

const inUse = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:4010"), {
  code: "EADDRINUSE",
});

describe("startFailed", () => {
  afterEach(() => vi.restoreAllMocks());

  it("names the port, the host and the server, and returns 2", () => {
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    const at = { host: "127.0.0.1", port: 4010, what: "sandbox", move: "set SANDBOX_PORT" };
    expect(startFailed(inUse, "x: ", at)).toBe(2);
    expect(said.mock.calls).toEqual([
      ["x: port 4010 on 127.0.0.1 (the sandbox) is in use; set SANDBOX_PORT"],
    ]);
  });

  it("gives another error's message on one line, and returns 2 too", () => {
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    const at = { host: "192.0.2.1", port: 0, move: "--port" };
    expect(startFailed(new Error("cannot listen\n  on 192.0.2.1\r\n"), "x: ", at)).toBe(2);
    expect(said.mock.calls).toEqual([["x: cannot listen on 192.0.2.1"]]);
  });
});
