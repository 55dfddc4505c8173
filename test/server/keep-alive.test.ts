// A kept-alive connection is kept a grace longer than its Keep-Alive header announces: a client
// reuses an idle connection until about the announced end, and on a busy machine its timer fires
// late. A server closing at exactly that end reset the request just sent (an ECONNRESET the suite
// met under load). Checked from what the server says and what it is set to, not by timing it.
import { once } from "node:events";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSafeServer, KEEP_ALIVE_ANNOUNCED_MS, KEEP_ALIVE_GRACE_MS } from "../../src/server/handler.js";

const errorBody = () => ({ error_code: "X", message: "x" });
let close = async () => {};
afterEach(() => close());

describe("a server of the suite's pipeline", () => {
  it("announces 5 s of keep-alive and keeps an idle connection at least a second longer", async () => {
    const server = createSafeServer((_req, res) => res.end("ok"), { errorBody });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    const [chunk] = (await once(socket, "data")) as [Buffer];
    socket.destroy();
    const head = chunk.toString("latin1").toLowerCase();
    expect(head).toContain("connection: keep-alive");
    expect(head).toContain(`keep-alive: timeout=${KEEP_ALIVE_ANNOUNCED_MS / 1000}`);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_ANNOUNCED_MS + KEEP_ALIVE_GRACE_MS);
    expect(server.keepAliveTimeout - KEEP_ALIVE_ANNOUNCED_MS).toBeGreaterThanOrEqual(1000);
  });
});
