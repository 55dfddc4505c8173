// The probe's event listener faces the deployment's (or anyone's) HTTP client: a delivery is kept
// and judged, a peer trickling a request is cut off, and a peer opening connection after connection
// finds the ones past the bound closed, so that what is read at once stays bounded in bytes.
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookChecker } from "../../conformance/checks/webhooks.js";
import { EventReceiver, MAX_CONNECTIONS } from "../../conformance/probe/event-receiver.js";

const open: { receiver?: EventReceiver; sockets: Socket[] } = { sockets: [] };

afterEach(async () => {
  for (const socket of open.sockets) socket.destroy();
  open.sockets = [];
  await open.receiver?.close();
  open.receiver = undefined;
});

async function listen(requestTimeoutMs?: number): Promise<{ receiver: EventReceiver; port: number }> {
  const receiver = await EventReceiver.listen(await createWebhookChecker(), 0, {
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
  });
  open.receiver = receiver;
  return { receiver, port: Number(new URL(receiver.localUrl).port) };
}

/** A raw connection; resolves once it is connected. */
function socketTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
    open.sockets.push(socket);
  });
}

/** Everything the server sent until it closed the connection. */
function untilClosed(socket: Socket): Promise<string> {
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  socket.on("error", () => {});
  return new Promise((resolve) => socket.once("close", () => resolve(text)));
}

const delivery = (port: number, body: string) =>
  fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

describe("the probe's event listener", () => {
  it("keeps a delivery with its verdict, and is found waiting for it", async () => {
    const { receiver, port } = await listen();
    const arrived = receiver.waitFor((event) => (event.json() as { id?: string })?.id === "evt-1", 10_000);
    expect((await delivery(port, JSON.stringify({ id: "evt-1" }))).status).toBe(200);
    const event = await arrived;
    expect(event?.json()).toEqual({ id: "evt-1" });
    // Not an event of the contract: the suite's verdict says so.
    expect(event?.verdict.ok).toBe(false);
  });

  it("answers a request whose body never arrives with 408 and closes it, at its deadline", async () => {
    const { port } = await listen(200);
    const socket = await socketTo(port);
    const answer = untilClosed(socket);
    socket.write(
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    expect(await answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it(`closes the connections past ${MAX_CONNECTIONS} at once, and still takes deliveries on the others`, async () => {
    const { receiver, port } = await listen();
    const held = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const socket = await socketTo(port);
      // A request begun and not finished: the connection is held.
      socket.write("POST / HTTP/1.1\r\nHost: x\r\n");
      held.push(socket);
    }
    const extra = await socketTo(port);
    expect(await untilClosed(extra)).toBe("");
    // One of the held connections finishes its delivery: it is taken as any other.
    const first = held[0] as Socket;
    const answer = untilClosed(first);
    const body = JSON.stringify({ id: "evt-held" });
    first.write(`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(
      (await receiver.waitFor((e) => (e.json() as { id?: string })?.id === "evt-held", 0))?.json(),
    ).toEqual({
      id: "evt-held",
    });
  });

  it("refuses a delivery larger than it keeps with 413, and keeps nothing of it", async () => {
    const { receiver, port } = await listen();
    const big = JSON.stringify({ id: "evt-big", pad: "x".repeat(1024 * 1024) });
    const status = await delivery(port, big).then(
      (response) => response.status,
      () => "dropped",
    );
    expect([413, "dropped"]).toContain(status);
    expect(await receiver.waitFor((e) => (e.json() as { id?: string })?.id === "evt-big", 0)).toBeUndefined();
  });
});
