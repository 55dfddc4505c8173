// The control API answers as its own contract says: every exchange the typed helper makes, errors
// included, passes the conformance suite run against openapi-sandbox/ (generated/sandbox-control.json).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConformanceChecker, exchangeFromHar } from "../../conformance/index.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { createSandboxControl, SandboxControlError } from "../../sandbox/index.js";
import { recordingFetch } from "../support/har-recorder.js";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let receiver: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  sbx = await startTestSandbox();
  receiver = await startRecorder();
});
afterAll(async () => {
  await sbx.running.close();
  await receiver.close();
});

describe("the control API", () => {
  it("answers every operation, errors included, as its contract says", async () => {
    const recorder = recordingFetch();
    const control = createSandboxControl(sbx.running.url, { fetch: recorder.fetch });
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => (e instanceof SandboxControlError ? e.status : -1),
      );

    await control.clock();
    await control.advance("PT1S");
    expect(await refused(control.advance("P1Y"))).toBe(400);
    const r = await control.addReceiver({ url: receiver.url, auth: { scheme: "bearer", token: "t" } });
    await control.addReceiver({ url: `${receiver.url}/cases`, kind: "workflow" });
    expect(await refused(control.addReceiver({ url: "ftp://x/" }))).toBe(400);
    await control.receivers();
    await control.testReceiver(r.id);

    const { data } = await sbx.client.POST("/api/v2/send_text", { body: { reference: "control" } });
    const id = data?.transaction_id as string;
    await control.biometric.get(id);
    await control.biometric.pending(id);
    await control.biometric.complete(id, "review");
    expect(await refused(control.biometric.complete(id, "pass"))).toBe(409);
    await control.biometric.review(id, "fail");
    await control.biometric.edit(id, "seen");
    await control.biometric.download(id);
    await control.biometric.error(id, "gone");
    expect(await refused(control.biometric.get("00000000-0000-4000-8000-000000000000"))).toBe(404);

    const created = await control.workflow.create({
      external_id: "wf-1",
      guided_flow_id: 7,
      service_name: "Kowhai Ltd",
    });
    await control.workflow.get(created.case_id);
    await control.workflow.complete(created.case_id, "approved");
    expect(await refused(control.workflow.complete(created.case_id, "denied"))).toBe(409);
    expect(await refused(control.workflow.get(999_999))).toBe(404);

    const delivered = await control.waitForDelivery((d) => d.status === "delivered", { receiver_id: r.id });
    await control.delivery(delivered.id);
    await control.replay(delivered.id);
    await control.deliveries({ status: "pending" });
    await control.settled();
    expect(await refused(control.delivery("dlv_missing"))).toBe(404);
    await control.removeReceiver(r.id);
    expect(await refused(control.removeReceiver(r.id))).toBe(404);

    const spec = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));
    const checker = createConformanceChecker({ spec });
    const failing = recorder.entries
      .map((entry, i) => checker.checkExchange(exchangeFromHar(entry, i)))
      .filter((result) => !result.ok);
    expect(recorder.entries.length).toBeGreaterThan(25);
    expect(failing).toEqual([]);
    // The check can fail: a clock answer without its offset breaks the contract.
    const clock = structuredClone(recorder.entries[0]) as (typeof recorder.entries)[0];
    clock.response.content.text = JSON.stringify({ now: "2026-11-23T10:00:00.000Z" });
    expect(checker.checkExchange(exchangeFromHar(clock, 0)).ok).toBe(false);
  });

  it("refuses a receiver past the cap with 409 LIMIT_REACHED, as its contract says", async () => {
    const own = await startTestSandbox();
    try {
      const recorder = recordingFetch();
      const control = createSandboxControl(own.running.url, { fetch: recorder.fetch });
      for (let i = 0; i < 100; i++) await control.addReceiver({ url: `${receiver.url}/r${i}` });
      const error = await control.addReceiver({ url: `${receiver.url}/one-more` }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SandboxControlError);
      expect((error as SandboxControlError).status).toBe(409);
      const last = recorder.entries.at(-1) as (typeof recorder.entries)[0];
      expect(JSON.parse(last.response.content.text ?? "")).toEqual({
        error_code: "LIMIT_REACHED",
        message: "At most 100 receivers can be registered; remove one before adding another.",
      });
      expect((await control.receivers()).length).toBe(100);
      const spec = JSON.parse(readFileSync(fromRoot("generated/sandbox-control.json"), "utf8"));
      const checker = createConformanceChecker({ spec });
      expect(checker.checkExchange(exchangeFromHar(last, 0))).toMatchObject({ ok: true });
    } finally {
      await own.running.close();
    }
  });
});
