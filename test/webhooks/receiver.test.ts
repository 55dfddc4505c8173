import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createReceiver } from "../../examples/webhook-receiver.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import type { WebhookEvent } from "../../src/webhooks/index.js";
import { type Delivery, deliveryOf, exampleDeliveries, personalValues } from "./deliveries.js";

const TOKEN = "tok_receiver_test_5b1e";
const WORKFLOW_PATH = "/cases/7f3b9c1e54a8";
const handled: WebhookEvent[] = [];
const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
const server = createReceiver({
  credentials: { scheme: "bearer", token: TOKEN },
  workflowPath: WORKFLOW_PATH,
  handle: (event) => {
    handled.push(event);
  },
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  warnings.mockRestore();
});

/** POST a delivery the way the service does: workflow ones to the secret path, others with the token. */
function post(
  d: Delivery,
  options: { token?: string; path?: string; body?: string } = {},
): Promise<Response> {
  const workflow = d.channel === "workflowCase";
  return fetch(`${base}${options.path ?? (workflow ? WORKFLOW_PATH : "/idv/events")}`, {
    method: "POST",
    headers: { ...d.headers, ...(workflow ? {} : { Authorization: `Bearer ${options.token ?? TOKEN}` }) },
    body: options.body ?? d.body,
  });
}

describe("the receiver of the README and docs/webhooks.md", () => {
  it.each([["README.md"], ["docs/webhooks.md"]])("is the code %s shows", (file) => {
    const source = readFileSync(fromRoot("examples/webhook-receiver.ts"), "utf8");
    const docs = readFileSync(fromRoot(file), "utf8");
    const shown = /<!-- receiver -->\n```ts\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(shown).toBe(source.replace('from "../src/webhooks/index.js"', 'from "idv-contract/webhooks"'));
  });

  it("acknowledges every example delivery with 200 and processes each once", async () => {
    const deliveries = exampleDeliveries();
    for (const d of deliveries) expect((await post(d)).status, `${d.channel} ${d.event}`).toBe(200);
    await vi.waitFor(() => expect(handled).toHaveLength(deliveries.length));
    expect(handled.map((e) => `${e.kind} ${e.event}`)).toEqual(
      deliveries.map((d) => `${d.channel} ${d.event}`),
    );
    for (const [i, d] of deliveries.entries()) expect(handled[i]?.payload).toEqual(d.payload);
  });

  it("acknowledges a retry without processing it again", async () => {
    const before = handled.length;
    for (const d of exampleDeliveries()) expect((await post(d)).status).toBe(200);
    const fresh = deliveryOf("pending");
    fresh.body = JSON.stringify({ ...(fresh.payload as object), message: "Second attempt failed." });
    expect((await post(fresh)).status).toBe(200);
    await vi.waitFor(() => expect(handled.length).toBe(before + 1));
    expect(handled.at(-1)?.event).toBe("pending");
  });

  it("acknowledges an unknown event type and does not process it", async () => {
    const before = handled.length;
    const d = deliveryOf("created");
    expect(
      (await post(d, { body: JSON.stringify({ ...(d.payload as object), event: "expired" }) })).status,
    ).toBe(200);
    const workflow = deliveryOf("case.completed");
    workflow.headers["X-Workflow-Event-Type"] = "case.reopened";
    expect((await post(workflow)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handled.length).toBe(before);
  });

  it("rejects a wrong credential with 401", async () => {
    const before = handled.length;
    const d = deliveryOf("archived");
    d.body = JSON.stringify({ ...(d.payload as object), transaction_id: "new-one" });
    expect((await post(d, { token: "tok_wrong" })).status).toBe(401);
    expect(handled.length).toBe(before);
  });

  it("rejects a tampered delivery with 400 and logs where, never the values", async () => {
    const d = deliveryOf("updated");
    (
      d.payload as { verification: { data: { personal: { date_of_birth: unknown } } } }
    ).verification.data.personal.date_of_birth = 2071985;
    warnings.mockClear();
    expect((await post(d, { body: JSON.stringify(d.payload) })).status).toBe(400);
    const logged = warnings.mock.calls.flat().join("\n");
    expect(logged).toContain("/verification/data/personal/date_of_birth");
    for (const value of [...personalValues(d.payload), "2071985"]) expect(logged).not.toContain(value);
  });

  it("answers 404 to a delivery on the other channel's path", async () => {
    const workflow = deliveryOf("case.completed");
    const response = await fetch(`${base}/idv/events`, {
      method: "POST",
      headers: { ...workflow.headers, Authorization: `Bearer ${TOKEN}` },
      body: workflow.body,
    });
    expect(response.status).toBe(404);
    expect((await post(deliveryOf("created"), { path: WORKFLOW_PATH })).status).toBe(404);
  });

  it("refuses a body far larger than any delivery with 413", async () => {
    const huge = JSON.stringify({ event: "created", padding: "x".repeat(1_100_000) });
    expect((await post(deliveryOf("created"), { body: huge })).status).toBe(413);
  });
});
