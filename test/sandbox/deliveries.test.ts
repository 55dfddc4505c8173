// Webhook deliveries like the service's: a 2xx acknowledges; anything else, a redirect or no answer
// is retried up to 8 times with exponential backoff, the last about 5 hours after the first, on the
// virtual clock; a slow receiver slows neither the API nor other receivers; replays and inspection.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backoff, MAX_RETRIES } from "../../sandbox/deliveries/queue.js";
import { parseWebhook } from "../../src/webhooks/index.js";
import { startRecorder, startTestSandbox, until } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(async () => {
  await sbx.running.close();
});
afterEach(async () => {
  for (const r of await sbx.control.receivers()) await sbx.control.removeReceiver(r.id);
  for (const o of opened.splice(0)) await o.close();
});

async function recorder(status?: () => number | "hang") {
  const r = await startRecorder(status);
  opened.push(r);
  return r;
}

async function start(reference: string): Promise<string> {
  const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference } });
  return data?.transaction_id as string;
}

describe("retries", () => {
  it("retries 8 times with exponential backoff; the last attempt about 5 hours after the first", async () => {
    const dead = await recorder(() => 500);
    const receiver = await sbx.control.addReceiver({ url: dead.url, auth: { scheme: "bearer", token: "t" } });
    const id = await start("retry-schedule");
    await dead.arrived(1);
    await sbx.control.advance("PT5H");
    await dead.arrived(1 + MAX_RETRIES);
    const final = await sbx.control.waitForDelivery((d) => d.status === "failed", {
      subject: id,
      receiver_id: receiver.id,
    });
    const times = final.attempts.map((a) => Date.parse(a.at));
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps).toEqual(Array.from({ length: MAX_RETRIES }, (_, i) => backoff(i + 1)));
    const span = (times.at(-1) as number) - (times[0] as number);
    expect(span / 3_600_000).toBeGreaterThan(4.5);
    expect(span / 3_600_000).toBeLessThanOrEqual(5);
    expect(final.next_attempt_at).toBeNull();
    // Nothing more after the last retry.
    await sbx.control.advance("PT10H");
    expect(dead.received).toHaveLength(1 + MAX_RETRIES);
  });

  it("stops at the first 2xx", async () => {
    let calls = 0;
    const flaky = await recorder(() => (++calls <= 2 ? 503 : 204));
    await sbx.control.addReceiver({ url: flaky.url });
    const id = await start("flaky");
    await flaky.arrived(1);
    await sbx.control.advance("PT70S");
    await flaky.arrived(2);
    await sbx.control.advance("PT140S");
    const done = await sbx.control.waitForDelivery((d) => d.status === "delivered", { subject: id });
    expect(done.attempts.map((a) => a.status)).toEqual([503, 503, 204]);
  });

  it("never follows a redirect: a 3xx is unacknowledged and the credentials stay put", async () => {
    const elsewhere = await recorder();
    const redirecting = await startRecorderRedirectingTo(`${elsewhere.url}/steal`);
    await sbx.control.addReceiver({
      url: redirecting.url,
      auth: { scheme: "bearer", token: "secret-token" },
    });
    const id = await start("redirect");
    const d = await sbx.control.waitForDelivery((x) => x.attempts.length > 0, { subject: id });
    expect(d.attempts[0]).toMatchObject({ status: 302, error: "redirect" });
    expect(d.status).toBe("pending");
    expect(elsewhere.received).toHaveLength(0);
  });
});

/** A server answering every request with a 302 to `location`. */
async function startRecorderRedirectingTo(location: string) {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    req.resume().on("end", () => res.writeHead(302, { location }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const closer = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  opened.push(closer);
  return closer;
}

describe("a slow receiver", () => {
  it("slows neither the API nor another receiver", async () => {
    const stuck = await recorder(() => "hang");
    const healthy = await recorder();
    await sbx.control.addReceiver({ url: stuck.url });
    await sbx.control.addReceiver({ url: healthy.url });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await start(`slow-${i}`));
    // Every request was answered while the stuck receiver held its attempts open.
    expect(ids).toHaveLength(12);
    await healthy.arrived(12);
    expect(stuck.received.length).toBeGreaterThan(0);
    expect(stuck.received.length).toBeLessThanOrEqual(4);
    const timedOut = await sbx.control.waitForDelivery(
      (d) => d.attempts[0]?.error === "timeout",
      { subject: ids[0] as string },
      15_000,
    );
    expect(timedOut.attempts[0]?.status).toBeNull();
  });
});

describe("an endless answer", () => {
  it("is read no further than MAX_ANSWER_BYTES: the delivery counts at once, the deadline is not waited for", async () => {
    const { createServer } = await import("node:http");
    let dropped = false;
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const endless = createServer((req, res) => {
      req.resume().on("end", () => {
        res.writeHead(200, { "content-type": "text/plain" });
        const pump = setInterval(() => res.write(chunk), 1);
        res.on("close", () => {
          dropped = true;
          clearInterval(pump);
        });
      });
    });
    await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve));
    opened.push({
      close: () => new Promise<void>((resolve) => endless.close(() => resolve())),
    });
    // A deadline longer than the wait below: reading the whole answer would outlast the test.
    const patient = await startTestSandbox({ deliveryTimeoutMs: 60_000 });
    opened.push({ close: () => patient.running.close() });
    const port = (endless.address() as { port: number }).port;
    await patient.control.addReceiver({ url: `http://127.0.0.1:${port}` });
    const { data } = await patient.client.POST("/api/v2/send_text", { body: { reference: "endless" } });
    const done = await patient.control.waitForDelivery(
      (d) => d.status === "delivered",
      { subject: data?.transaction_id as string },
      8_000,
    );
    expect(done.attempts[0]).toMatchObject({ status: 200 });
    await until(() => dropped);
  }, 20_000);
});

describe("inspection and replay", () => {
  it("lists deliveries with their headers and payload (never credentials), and replays one", async () => {
    const got = await recorder();
    await sbx.control.addReceiver({
      url: got.url,
      auth: { scheme: "basic", username: "u", password: "p-secret" },
    });
    const id = await start("replay");
    const first = await sbx.control.waitForDelivery((d) => d.status === "delivered", { subject: id });
    expect(first.payload).toMatchObject({ event: "created", transaction_id: id });
    expect(JSON.stringify(first)).not.toContain("p-secret");
    expect(JSON.stringify(await sbx.control.receivers())).not.toContain("p-secret");
    const replay = await sbx.control.replay(first.id);
    expect(replay.replay_of).toBe(first.id);
    await got.arrived(2);
    expect(got.received[1]?.body).toBe(got.received[0]?.body);
  });

  it("the Test button: the test event once, ok on 2xx or 3xx, not on 4xx or 5xx", async () => {
    let answer = 302;
    const got = await recorder(() => answer);
    const r = await sbx.control.addReceiver({ url: got.url, auth: { scheme: "bearer", token: "tb" } });
    expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: true, status: 302 });
    answer = 500;
    expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: false, status: 500 });
    expect(got.received).toHaveLength(2);
    const parsed = parseWebhook(got.received[0]?.body ?? "", got.received[0]?.headers ?? {});
    expect(parsed.event).toMatchObject({ kind: "biometricWebhook", event: "test" });
    expect(got.received[0]?.headers.authorization).toBe("Bearer tb");
    expect(await sbx.control.deliveries({ receiver_id: r.id })).toEqual([]);
  });

  it("a removed receiver's pending deliveries fail", async () => {
    const dead = await recorder(() => 500);
    const r = await sbx.control.addReceiver({ url: dead.url });
    const id = await start("removed");
    await dead.arrived(1);
    await sbx.control.removeReceiver(r.id);
    await sbx.control.advance("PT2M");
    const d = await sbx.control.waitForDelivery((x) => x.status === "failed", { subject: id });
    expect(d.attempts).toHaveLength(1);
  });
});
