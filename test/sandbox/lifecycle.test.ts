// The biometric lifecycle, row by row of the interface document's "States and transitions" table,
// through the service's operations, the control API and the virtual clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiError } from "../../src/index.js";
import { pdfStructureProblems } from "../support/pdf.js";
import { eventsOf, startRecorder, startTestSandbox, until } from "../support/sandbox.js";

let sbx: Awaited<ReturnType<typeof startTestSandbox>>;
let receiver: Awaited<ReturnType<typeof startRecorder>>;

beforeAll(async () => {
  receiver = await startRecorder();
  sbx = await startTestSandbox();
  await sbx.control.addReceiver({ url: `${receiver.url}/hook`, auth: { scheme: "bearer", token: "tok-1" } });
});
afterAll(async () => {
  await sbx.running.close();
  await receiver.close();
});

/** Start a verification; its transaction_id. */
async function start(body: { reference: string; lastname?: string; contact_phone?: string }) {
  const { data, response } = await sbx.client.POST("/api/v2/send_text", { body });
  expect(response.status).toBe(200);
  return (data as { transaction_id: string }).transaction_id;
}

const events = (id: string) => eventsOf(receiver.received, id);
const status = (id: string) =>
  receiver.received
    .map((r) => JSON.parse(r.body))
    .filter((b) => b.transaction_id === id && b.verification)
    .map((b) => `${b.event}:${b.verification.status}${b.verification.reviewed ? ":reviewed" : ""}`);
const pdf = (id: string) =>
  sbx.client.GET("/api/v2/biometric/pdf/{transaction_id}.pdf", {
    params: { path: { transaction_id: id } },
    parseAs: "arrayBuffer",
  });

describe("magic values choose the journey, which runs by itself", () => {
  it.each([
    ["sandbox-pass", ["created", "completed"], ["completed:pass"]],
    ["sandbox-review", ["created", "completed"], ["completed:review"]],
    ["sandbox-fail", ["created", "completed"], ["completed:fail"]],
    ["sandbox-error", ["created", "error"], []],
    ["sandbox-pending", ["created", "pending", "completed"], ["completed:pass"]],
  ])("last name %s: %j", async (lastname, want, statuses) => {
    const id = await start({ reference: "journey", lastname, contact_phone: "64211234567" });
    await until(() => events(id).length === want.length);
    expect(events(id)).toEqual(want);
    expect(status(id)).toEqual(statuses);
  });

  it("reads the magic word at the end of the reference too", async () => {
    const id = await start({ reference: "onboarding-12 sandbox-review" });
    await until(() => events(id).length === 2);
    expect(status(id)).toEqual(["completed:review"]);
  });

  it("pending-then-error: a pending event per failed retry every 4 hours, error after 24 hours, in one advance", async () => {
    const id = await start({ reference: "journey", lastname: "sandbox-pending-error" });
    // No wait for the pending event: the advance runs the journey's steps at their own times.
    await sbx.control.advance("PT25H");
    const view = await sbx.control.biometric.get(id);
    expect(view.state).toBe("error");
    expect(view.events.map((e) => e.event)).toEqual(["created", ...Array(6).fill("pending"), "error"]);
    const times = view.events.slice(1).map((e) => Date.parse(e.at));
    expect(times.slice(1).map((t, i) => t - (times[i] as number))).toEqual([
      ...Array(5).fill(4 * 3_600_000),
      4 * 3_600_000,
    ]);
    await until(() => events(id).at(-1) === "error");
    expect(events(id)).toEqual(["created", ...Array(6).fill("pending"), "error"]);
  });

  it("sandbox-pending is completed by one advance of 10 seconds", async () => {
    const id = await start({ reference: "journey", lastname: "sandbox-pending" });
    await sbx.control.advance("PT10S");
    const view = await sbx.control.biometric.get(id);
    expect(view).toMatchObject({ state: "completed", status: "pass" });
    expect(view.events.map((e) => e.event)).toEqual(["created", "pending", "completed"]);
  });

  it("an ordinary request waits in created for the control API", async () => {
    const id = await start({ reference: "ordinary", lastname: "Ngata" });
    await until(() => events(id).length === 1);
    const view = await sbx.control.biometric.get(id);
    expect(view.state).toBe("created");
    expect(view.journey).toBeNull();
  });
});

describe("transitions through the control API", () => {
  it("review: the PDF waits for the agent; the review sends updated and releases the PDF", async () => {
    const id = await start({ reference: "review-flow", lastname: "Tane" });
    await sbx.control.biometric.complete(id, "review");
    const refused = await pdf(id);
    expect(apiError(refused)).toMatchObject({ status: 400, code: "NOT_COMPLETED" });
    await sbx.control.biometric.review(id, "pass");
    await until(() => events(id).length === 3);
    expect(status(id)).toEqual(["completed:review", "updated:pass:reviewed"]);
    const got = await pdf(id);
    expect(got.response.status).toBe(200);
    const text = Buffer.from(got.data as ArrayBuffer).toString("latin1");
    expect(pdfStructureProblems(text)).toEqual([]);
    expect(text).toContain("review-flow");
    expect(text).toContain("Tane");
  });

  it("edit: a completed verification sends updated with the notes", async () => {
    const id = await start({ reference: "edit-flow" });
    await sbx.control.biometric.complete(id, "pass");
    await sbx.control.biometric.edit(id, "Address confirmed by phone.");
    await until(() => events(id).length === 3);
    const updated = JSON.parse(receiver.received.at(-1)?.body ?? "{}");
    expect(updated.event).toBe("updated");
    expect(updated.verification.notes).toBe("Address confirmed by phone.");
  });

  it("resend archives the original and creates a new verification; only from created", async () => {
    const id = await start({ reference: "resend-flow", contact_phone: "64211234567" });
    const { data, response } = await sbx.client.PUT("/api/v2/resend_text/{transaction_id}", {
      params: { path: { transaction_id: id } },
      body: {},
    });
    expect(response.status).toBe(200);
    const next = (data as { transaction_id: string }).transaction_id;
    expect(next).not.toBe(id);
    await until(() => events(id).length === 2 && events(next).length === 1);
    expect(events(id)).toEqual(["created", "archived"]);
    expect(await sbx.control.biometric.get(id)).toMatchObject({ state: "archived", replaced_by: next });
    const again = await sbx.client.PUT("/api/v2/resend_text/{transaction_id}", {
      params: { path: { transaction_id: id } },
      body: {},
    });
    expect(apiError(again)).toMatchObject({ status: 422, code: "VALIDATION_FAILED" });
  });

  it("archived 60 minutes after the PDF download, not before; then the PDF is ALREADY_ARCHIVED", async () => {
    const id = await start({ reference: "download-flow" });
    await sbx.control.biometric.complete(id, "pass");
    expect((await pdf(id)).response.status).toBe(200);
    await sbx.control.advance("PT59M");
    expect((await sbx.control.biometric.get(id)).state).toBe("completed");
    await sbx.control.advance("PT1M");
    expect((await sbx.control.biometric.get(id)).state).toBe("archived");
    await until(() => events(id).at(-1) === "archived");
    expect(apiError(await pdf(id))).toMatchObject({ status: 400, code: "ALREADY_ARCHIVED" });
  });

  it("archived at the end of the 7-day lifespan", async () => {
    const id = await start({ reference: "lifespan" });
    await sbx.control.advance("P6DT23H");
    expect((await sbx.control.biometric.get(id)).state).toBe("created");
    await sbx.control.advance("PT1H");
    expect((await sbx.control.biometric.get(id)).state).toBe("archived");
  });

  it("pending by the control API: a pending event per retry until completed", async () => {
    const id = await start({ reference: "pending-flow" });
    await sbx.control.biometric.pending(id);
    await sbx.control.advance("PT4H");
    await sbx.control.biometric.complete(id, "fail");
    await until(() => events(id).length === 4);
    expect(events(id)).toEqual(["created", "pending", "pending", "completed"]);
  });

  it("an unexpected error kills a verification: no transition after it", async () => {
    const id = await start({ reference: "error-flow" });
    await sbx.control.biometric.complete(id, "pass");
    await sbx.control.biometric.error(id);
    await expect(sbx.control.biometric.complete(id, "pass")).rejects.toMatchObject({
      status: 409,
      code: "INVALID_TRANSITION",
    });
    await until(() => events(id).at(-1) === "error");
  });

  it("unknown transaction ids get the operation's 404", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    expect(apiError(await pdf(missing))).toMatchObject({ status: 404, code: "NOT_FOUND", shape: "B" });
    await expect(sbx.control.biometric.get(missing)).rejects.toMatchObject({ status: 404 });
  });

  it("refuses a PDF before completion with NOT_COMPLETED", async () => {
    const id = await start({ reference: "early" });
    expect(apiError(await pdf(id))).toMatchObject({ status: 400, code: "NOT_COMPLETED" });
  });
});
