// "archived event; data erased": once a verification is archived, the personal data it was sent
// with is gone from every copy the sandbox keeps: the deliveries' bodies as listed, the --state
// file, and what a replay sends.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startRecorder, startTestSandbox } from "../support/sandbox.js";

const FIRST = "Canaryfirst";
const LAST = "Canarylast";
const PHONE = "64219876543";
const personal = (text: string) => [FIRST, LAST, PHONE].filter((canary) => text.includes(canary));

describe("a verification archived after its PDF download", () => {
  it("leaves no personal data in its deliveries, the state file or a replay; its result is not sent again", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sbx-erase-")), "state.json");
    const got = await startRecorder();
    // A receiver that never acknowledges: its completed delivery is still retrying at the archive.
    const failing = await startRecorder(() => 500);
    const sbx = await startTestSandbox({ stateFile: file });
    try {
      await sbx.control.addReceiver({ url: got.url });
      await sbx.control.addReceiver({ url: failing.url });
      const { data } = await sbx.client.POST("/api/v2/send_text", {
        body: { reference: "erase-me", firstname: FIRST, lastname: LAST, contact_phone: PHONE },
      });
      const id = data?.transaction_id as string;
      await sbx.control.biometric.complete(id, "pass");
      await Promise.all([got.arrived(2), failing.arrived(2)]);
      // Before the archive the data is there, as sent.
      expect(personal(JSON.stringify(await sbx.control.deliveries({ subject: id })))).not.toEqual([]);
      const pdf = await sbx.client.GET("/api/v2/biometric/pdf/{transaction_id}.pdf", {
        params: { path: { transaction_id: id } },
        parseAs: "arrayBuffer",
      });
      expect(pdf.response.status).toBe(200);
      await sbx.control.advance("PT1H");
      expect((await sbx.control.biometric.get(id)).state).toBe("archived");
      await got.arrived(3);

      const kept = await sbx.control.deliveries({ subject: id });
      expect(kept.map((d) => d.event).sort()).toEqual(
        ["archived", "archived", "completed", "completed", "created", "created"].sort(),
      );
      expect(personal(JSON.stringify(kept))).toEqual([]);
      // The completed delivery still retrying to the failing receiver stopped.
      const stopped = kept.find((d) => d.event === "completed" && d.attempts[0]?.status === 500);
      expect(stopped?.status).toBe("failed");
      expect(stopped?.next_attempt_at).toBeNull();

      // A result erased is not sent again; an event that carried only contact data goes as erased.
      const completed = kept.find((d) => d.event === "completed" && d.status === "delivered");
      await expect(sbx.control.replay(completed?.id as string)).rejects.toMatchObject({
        status: 409,
        code: "INVALID_TRANSITION",
      });
      const created = kept.find((d) => d.event === "created" && d.status === "delivered");
      await sbx.control.replay(created?.id as string);
      await got.arrived(4);
      const resent = got.received[3]?.body ?? "";
      expect(JSON.parse(resent)).toMatchObject({ event: "created", transaction_id: id, phone_number: null });
      expect(personal(resent)).toEqual([]);
    } finally {
      await sbx.running.close();
      await got.close();
      await failing.close();
    }
    expect(personal(readFileSync(file, "utf8"))).toEqual([]);
  });
});
