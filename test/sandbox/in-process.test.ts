// createSandbox()'s receivers in this process: each delivery reaches the handler as a Request with
// the headers and body a receiver over HTTP gets; a handler that throws, answers no Response or
// never answers is recorded as a failed attempt (connection, timeout), as a receiver over HTTP
// would be; the Test button reaches it too; bad options are refused naming the option.
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type InProcessSandbox, type ReceiverHandler } from "../../sandbox/index.js";
import { createClient } from "../../src/index.js";

const KEY = { key: "k-in-process", secret: "s-in-process" };
let sandbox: InProcessSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A sandbox with one handler receiver; one verification created and completed; its deliveries once settled. */
async function deliverTo(handler: ReceiverHandler, deliveryTimeoutMs = 2000) {
  sandbox = await createSandbox({ ...KEY, deliveryTimeoutMs });
  const receiver = await sandbox.receivers.add(handler, { auth: { scheme: "bearer", token: "t-1" } });
  const idv = createClient({
    baseUrl: sandbox.url,
    apiKey: KEY.key,
    secret: KEY.secret,
    fetch: sandbox.fetch,
  });
  const created = await idv.POST("/api/v2/send_text", {
    body: { reference: "r-1", firstname: "Mere", lastname: "Tane", contact_phone: "64211234567" },
  });
  expect(created.response.status).toBe(200);
  await sandbox.control.settled();
  return { receiver, deliveries: await sandbox.control.deliveries({ receiver_id: receiver.id }) };
}

describe("an in-process receiver", () => {
  it("gets each delivery as a Request, signed as configured, and its status is recorded", async () => {
    const got: { method: string; auth: string | null; type: string | null; event: string }[] = [];
    const { receiver, deliveries } = await deliverTo(async (request) => {
      const body = (await request.json()) as { event: string };
      got.push({
        method: request.method,
        auth: request.headers.get("authorization"),
        type: request.headers.get("content-type"),
        event: body.event,
      });
      return new Response("ok", { status: 202 });
    });
    expect(receiver.url).toMatch(/^http:\/\/[0-9a-f-]{36}\.receiver\.invalid\/$/);
    expect(got).toEqual([{ method: "POST", auth: "Bearer t-1", type: "application/json", event: "created" }]);
    expect(deliveries.map((d) => [d.event, d.status, d.attempts.map((a) => a.status)])).toEqual([
      ["created", "delivered", [202]],
    ]);
    expect(await sandbox?.control.testReceiver(receiver.id)).toMatchObject({ ok: true, status: 202 });
  });

  it("that throws, or answers something else than a Response, failed to connect", async () => {
    for (const handler of [
      () => {
        throw new Error("the handler's own bug");
      },
      () => ({ status: 200 }) as unknown as Response,
      () => Response.error(),
    ]) {
      const { deliveries } = await deliverTo(handler);
      expect(deliveries[0]?.attempts.map((a) => [a.status, a.error])).toEqual([[null, "connection"]]);
      expect(deliveries[0]?.status).toBe("pending");
      await sandbox?.close();
    }
  });

  it("that never answers times out at deliveryTimeoutMs, and settled() waits no longer", async () => {
    let aborted = false;
    const { deliveries } = await deliverTo(
      (request) =>
        new Promise<Response>(() => {
          request.signal.addEventListener("abort", () => (aborted = true));
        }),
      50,
    );
    expect(deliveries[0]?.attempts.map((a) => [a.status, a.error])).toEqual([[null, "timeout"]]);
    expect(aborted).toBe(true);
  });

  it("is forgotten when the sandbox closes: its url reaches no one", async () => {
    const { receiver } = await deliverTo(() => new Response(null, { status: 204 }));
    await sandbox?.close();
    sandbox = await createSandbox(KEY);
    const again = await sandbox.control.addReceiver({ url: receiver.url });
    expect(await sandbox.control.testReceiver(again.id)).toMatchObject({ ok: false, status: null });
  });
});

describe("createSandbox's options", () => {
  it("are refused with a TypeError naming the option", async () => {
    await expect(createSandbox({ baseUrl: "https://x.example/api" })).rejects.toThrow(
      /baseUrl must be an origin alone/,
    );
    await expect(createSandbox({ baseUrl: "ftp://x.example" })).rejects.toThrow(/createSandbox: baseUrl/);
    await expect(createSandbox({ key: "k" })).rejects.toThrow("createSandbox: key and secret go together");
    await expect(createSandbox({ clock: "not a date" })).rejects.toThrow(/createSandbox: clock/);
  });

  it("answer as the given origin, and start the clock at the given time", async () => {
    sandbox = await createSandbox({
      ...KEY,
      baseUrl: "https://idv.example.test",
      clock: "2030-01-02T03:04:05Z",
    });
    expect(sandbox.url).toBe("https://idv.example.test");
    expect(sandbox.env.IDV_BASE_URL).toBe("https://idv.example.test");
    const clock = await sandbox.control.clock();
    expect(Date.parse(clock.now) - Date.parse("2030-01-02T03:04:05Z")).toBeLessThan(60_000);
  });
});
