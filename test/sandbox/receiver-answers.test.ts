// A receiver's answer is hostile input: the sandbox reads its status and at most 64 KiB of its body,
// decodes nothing, and survives whatever comes back (undici's fetch ended the process on an answer
// naming six stacked Content-Encodings with a body cut short).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawPeer } from "../support/hostile.js";
import { startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  sbx = await startTestSandbox();
});
afterAll(async () => {
  await sbx.running.close();
});

/** A raw-socket receiver: reads a request's head, writes `answer`, then closes. */
async function rawReceiver(answer: string) {
  const peer = await rawPeer(() => answer);
  return { ...peer, url: `${peer.url}/hook` };
}

const STACKED =
  "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip, gzip, gzip, gzip, gzip\r\nContent-Length: 10\r\n\r\n12345";

describe("a receiver answering with stacked encodings and a body cut short", () => {
  it("the delivery's attempt is recorded as failed and retried; the sandbox lives on", async () => {
    const receiver = await rawReceiver(STACKED);
    try {
      const r = await sbx.control.addReceiver({ url: receiver.url, auth: { scheme: "bearer", token: "t" } });
      const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference: "stacked" } });
      const id = data?.transaction_id as string;
      const first = await sbx.control.waitForDelivery((d) => d.attempts.length === 1, { subject: id });
      expect(first.attempts[0]).toMatchObject({ status: null, error: "connection" });
      expect(first.status).toBe("pending");
      await sbx.control.advance("PT70S");
      await sbx.control.waitForDelivery((d) => d.attempts.length === 2, { subject: id });
      // Still answering, after two such answers (and the time for anything unhandled to surface).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await sbx.control.clock()).now).toMatch(/^\d{4}-/);
      await sbx.control.removeReceiver(r.id);
    } finally {
      await receiver.close();
    }
  });

  it("the Test button says it failed; the sandbox lives on", async () => {
    const receiver = await rawReceiver(STACKED);
    try {
      const r = await sbx.control.addReceiver({ url: receiver.url });
      expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: false, status: null, error: "connection" });
      expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: false, status: null, error: "connection" });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.requests()).toBe(2);
      expect((await sbx.control.clock()).now).toMatch(/^\d{4}-/);
      await sbx.control.removeReceiver(r.id);
    } finally {
      await receiver.close();
    }
  });

  it("a whole answer counts by its status, its encodings unread", async () => {
    const receiver = await rawReceiver(
      "HTTP/1.1 204 No Content\r\nContent-Encoding: gzip, gzip, gzip, gzip, gzip, gzip, br\r\n\r\n",
    );
    try {
      const r = await sbx.control.addReceiver({ url: receiver.url });
      expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: true, status: 204 });
      await sbx.control.removeReceiver(r.id);
    } finally {
      await receiver.close();
    }
  });
});

describe("answers a receiver shapes against the sandbox", () => {
  it.each([
    ["a 204 with a body", "HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\nok", 204],
    ["more than Content-Length said", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", 200],
  ])("%s: the whole answer counts, the stray bytes end the connection", async (_name, raw, status) => {
    const receiver = await rawReceiver(raw);
    try {
      const r = await sbx.control.addReceiver({ url: receiver.url });
      expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: true, status });
      const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference: "stray" } });
      const id = data?.transaction_id as string;
      const delivered = await sbx.control.waitForDelivery((d) => d.attempts.length === 1, { subject: id });
      expect(delivered).toMatchObject({ status: "delivered", attempts: [{ status }] });
      await sbx.control.removeReceiver(r.id);
    } finally {
      await receiver.close();
    }
  });

  it("an answer longer than 64 KiB is read that far, then dropped: its status counts", async () => {
    const endless = await rawReceiver(
      `HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n${"a".repeat(70_000)}`,
    );
    try {
      const r = await sbx.control.addReceiver({ url: endless.url });
      expect(await sbx.control.testReceiver(r.id)).toEqual({ ok: true, status: 200 });
      await sbx.control.removeReceiver(r.id);
    } finally {
      await endless.close();
    }
  });
});
