// startSandbox() of idv-contract/sandbox, as an integrator's test setup calls it: the address, the
// credentials and the control client in hand; a hundred starts and stops leave no handle or listener.
import { describe, expect, it } from "vitest";
import { SandboxControlError, startSandbox } from "../../sandbox/index.js";
import { createClient } from "../../src/index.js";
import { startRecorder } from "../support/sandbox.js";

/** The process's active resources by kind (sockets, servers, timers…), once closes under way have ended. */
async function resources(): Promise<Map<string, number>> {
  const snapshot = () => {
    const counts = new Map<string, number>();
    for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    return counts;
  };
  // A socket's close ends a few turns of the event loop after its server's: wait until nothing changes.
  let last = snapshot();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = snapshot();
    if (JSON.stringify([...now]) === JSON.stringify([...last])) return now;
    last = now;
  }
  return last;
}

/** The kinds of resource that grew from `before` to `after`, with both counts. */
const grown = (before: Map<string, number>, after: Map<string, number>) =>
  [...after]
    .filter(([kind, n]) => n > (before.get(kind) ?? 0))
    .map(([kind, n]) => `${kind}: ${before.get(kind) ?? 0} → ${n}`);

const EVENTS = ["SIGINT", "SIGTERM", "exit", "beforeExit", "uncaughtException", "unhandledRejection"];
const listeners = () => Object.fromEntries(EVENTS.map((e) => [e, process.listenerCount(e)]));

describe("startSandbox()", () => {
  it("gives the address, the credentials it accepts and the control client; close() stops it", async () => {
    const sandbox = await startSandbox({ key: "k-1", secret: "s-1", clock: "2031-05-01T09:00:00Z" });
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect([sandbox.key, sandbox.secret]).toEqual(["k-1", "s-1"]);
    const { now } = await sandbox.control.clock();
    expect(Date.parse(now) - Date.parse("2031-05-01T09:00:00Z")).toBeGreaterThanOrEqual(0);
    expect(Date.parse(now) - Date.parse("2031-05-01T09:00:00Z")).toBeLessThan(60_000);
    const client = createClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.key,
      secret: sandbox.secret,
      runtime: "server",
      retry: false,
    });
    const created = await client.POST("/api/v4/pep_checks", {
      body: { reference: "R-1", firstname: "Ada", lastname: "Lovelace", date_of_birth: "10/12/1815" },
    });
    expect(created.response.status).toBe(200);
    const wrong = createClient({ baseUrl: sandbox.url, apiKey: "k-1", secret: "other", runtime: "server" });
    expect((await wrong.POST("/api/v2/send_text", { body: { reference: "R" } })).response.status).toBe(401);
    await sandbox.close();
    await sandbox.close();
    await expect(fetch(`${sandbox.url}/_sandbox/clock`)).rejects.toThrow();
  });

  it("generates credentials when none are given, and registers the receivers it is given", async () => {
    const receiver = await startRecorder();
    const sandbox = await startSandbox({ receivers: [{ url: `${receiver.url}/hooks`, kind: "events" }] });
    try {
      expect(sandbox.key).toMatch(/^sbx_key_/);
      expect(sandbox.secret).toMatch(/^sbx_secret_/);
      const [registered] = await sandbox.control.receivers();
      expect(registered?.url).toBe(`${receiver.url}/hooks`);
      expect((await sandbox.control.testReceiver(registered?.id ?? "")).ok).toBe(true);
      expect(receiver.received.map((r) => r.path)).toEqual(["/hooks"]);
    } finally {
      await sandbox.close();
      await receiver.close();
    }
  });

  it("refuses a receiver the control API refuses, and leaves nothing listening", async () => {
    const before = await resources();
    await expect(startSandbox({ receivers: [{ url: "ftp://example.test/" }] })).rejects.toBeInstanceOf(
      SandboxControlError,
    );
    expect(grown(before, await resources())).toEqual([]);
  });

  it("refuses a key without a secret and a clock that is not a date, naming the option", async () => {
    await expect(startSandbox({ key: "k" })).rejects.toThrow(/key and secret go together/);
    await expect(startSandbox({ clock: "soon" })).rejects.toThrow(/clock must be a date/);
    for (const deliveryTimeoutMs of [0, 1.5, Number.NaN, 600_001])
      await expect(startSandbox({ deliveryTimeoutMs })).rejects.toThrow(
        /deliveryTimeoutMs must be an integer/,
      );
  });

  it("bounds settled() by its deliveryTimeoutMs when a receiver never answers", async () => {
    const silent = await startRecorder(() => "hang");
    const sandbox = await startSandbox({ deliveryTimeoutMs: 200, receivers: [{ url: silent.url }] });
    try {
      const client = createClient({ baseUrl: sandbox.url, apiKey: sandbox.key, secret: sandbox.secret });
      await client.POST("/api/v2/send_text", { body: { reference: "R-silent" } });
      expect((await sandbox.control.settled()).deliveries).toBe(1);
      const [delivery] = await sandbox.control.deliveries();
      expect(delivery?.attempts).toMatchObject([{ status: null, error: "timeout" }]);
      expect(delivery?.attempts[0]?.duration_ms).toBeLessThan(10_000);
    } finally {
      await sandbox.close();
      await silent.close();
    }
  });

  it("started and stopped 100 times in one process, leaks neither handles nor listeners", async () => {
    // Once first: what the first start loads for good (modules, the validators) is not a leak.
    const first = await startSandbox();
    await first.control.clock();
    await first.close();
    const handlesBefore = await resources();
    const listenersBefore = listeners();
    for (let i = 0; i < 100; i++) {
      const sandbox = await startSandbox();
      // A request each time: keep-alive sockets, on both sides, must end with the sandbox too.
      await sandbox.control.clock();
      await sandbox.close();
    }
    expect(grown(handlesBefore, await resources())).toEqual([]);
    expect(listeners()).toEqual(listenersBefore);
  }, 120_000);

  it("started and stopped 20 times, each delivering to a receiver, leaves no handle of its delivery thread", async () => {
    const receiver = await startRecorder();
    try {
      const deliverOnce = async () => {
        const sandbox = await startSandbox({ receivers: [{ url: `${receiver.url}/hooks`, kind: "events" }] });
        const client = createClient({
          baseUrl: sandbox.url,
          apiKey: sandbox.key,
          secret: sandbox.secret,
          runtime: "server",
        });
        const { data } = await client.POST("/api/v2/send_text", { body: { reference: "leak" } });
        await sandbox.control.waitForDelivery((d) => d.status === "delivered", {
          subject: data?.transaction_id as string,
        });
        await sandbox.close();
      };
      await deliverOnce();
      const handlesBefore = await resources();
      for (let i = 0; i < 20; i++) await deliverOnce();
      expect(grown(handlesBefore, await resources())).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
