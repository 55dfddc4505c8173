// Webhook deliveries: matched to their AsyncAPI message by headers and body, then checked.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import { createWebhookChecker } from "../../conformance/checks/webhooks.js";
import { messageExamples } from "../../scripts/contract/asyncapi-validate.js";
import { loadAsyncApi } from "../support/contract.js";
import { runCli, tempDir, writeNdjson } from "./support/cli.js";

const asyncapi = loadAsyncApi();
const checker = await createWebhookChecker();

/** A delivery as a receiver records it. */
function delivery(payload: unknown, headers: Record<string, string> = {}): Exchange {
  const lower = Object.fromEntries(
    Object.entries({ "Content-Type": "application/json", ...headers }).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return {
    index: 0,
    request: {
      method: "POST",
      path: "/idv/events",
      query: {},
      headers: lower,
      body: { kind: "text", text: JSON.stringify(payload) },
    },
    response: { status: 200, headers: {} },
  };
}

/** Every example of every message of the contract, as a delivery. */
const examples = messageExamples(asyncapi).map((e) => ({
  key: `${e.channel}:${e.message}`,
  delivery: delivery(e.payload, e.headers ?? {}),
}));

const workflow = () =>
  structuredClone(examples.find((e) => e.key === "workflowCase:caseCompleted")?.delivery as Exchange);
const completed = () =>
  structuredClone(examples.find((e) => e.key === "biometricWebhook:completed")?.delivery as Exchange);

describe("webhook deliveries", () => {
  it.each(examples.map((e) => [e.key, e] as const))(
    "the example of %s conforms and is matched to it",
    (key, e) => {
      const result = checker.checkDelivery(structuredClone(e.delivery));
      expect(result.violations).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(result.operationId).toBe(key);
    },
  );

  it("covers the three channels", () => {
    expect(new Set(examples.map((e) => e.key.split(":")[0]))).toEqual(
      new Set(["biometricWebhook", "eddCaseCompleted", "workflowCase"]),
    );
  });

  it("channel_known: a delivery that carries no event marker is a violation", () => {
    const result = checker.checkDelivery(delivery({ hello: "world" }));
    expect(result.ok).toBe(false);
    expect(result.violations).toEqual([
      {
        in: "delivery.channel",
        check: "channel_known",
        pointer: "",
        message: expect.stringMatching(/matches no channel.*body member event, header X-Workflow-Event-Type/),
      },
    ]);
  });

  it("channel_known: a new event type of a known channel is a warning, not a violation", () => {
    const biometric = checker.checkDelivery(delivery({ event: "expired", transaction_id: "5f3c9a0e" }));
    expect(biometric.ok).toBe(true);
    expect(biometric.warnings).toEqual([
      {
        in: "delivery.body",
        check: "channel_known",
        pointer: "/event",
        message: expect.stringMatching(/biometricWebhook delivery the contract does not describe.*tolerated/),
      },
    ]);
    const x = workflow();
    x.request.headers["x-workflow-event-type"] = "case.reopened";
    const result = checker.checkDelivery(x);
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.pointer)).toEqual(["/X-Workflow-Event-Type"]);
  });

  it("payload_schema: a completed event without its verification", () => {
    const x = completed();
    const body = JSON.parse((x.request.body as { text: string }).text);
    body.verification = null;
    x.request.body = { kind: "text", text: JSON.stringify(body) };
    const result = checker.checkDelivery(x);
    expect(result.operationId).toBe("biometricWebhook:completed");
    expect(result.violations).toContainEqual({
      in: "delivery.body",
      check: "payload_schema",
      pointer: "/verification",
      message: "must be object (is null)",
    });
  });

  it("payload_schema: a body that is not JSON", () => {
    const x = completed();
    x.request.body = { kind: "text", text: "event=completed" };
    expect(checker.checkDelivery(x).violations).toContainEqual({
      in: "delivery.body",
      check: "payload_schema",
      pointer: "",
      message: "the body is not valid JSON",
    });
  });

  it("required_headers: the workflow delivery id and the media type", () => {
    const x = workflow();
    delete x.request.headers["x-workflow-webhook-id"];
    x.request.headers["content-type"] = "text/plain";
    const result = checker.checkDelivery(x);
    expect(result.violations).toEqual([
      {
        in: "delivery.header",
        check: "required_headers",
        pointer: "/Content-Type",
        message: "media type text/plain is not application/json",
      },
      {
        in: "delivery.header",
        check: "required_headers",
        pointer: "/X-Workflow-Webhook-Id",
        message: "the required X-Workflow-Webhook-Id header is missing",
      },
    ]);
  });
});

describe("idv-conformance webhooks", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("exits 0 on conforming deliveries and 1 otherwise, leaking none of the payload", () => {
    const good = writeNdjson(
      dir,
      "good.ndjson",
      examples.map((e) => e.delivery),
    );
    const run = runCli(["webhooks", good]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`${examples.length} checked: ${examples.length} passed`));

    const leaky = completed();
    const body = JSON.parse((leaky.request.body as { text: string }).text);
    body.phone_number = "64 21 555 0199";
    body.verification.data.personal.firstname = 7;
    body.verification.data.personal.lastname = "Tautahi-Brown";
    body.verification.device.ip = "198.51.100.23";
    body.verification.customer_email = "kiri.tautahi@example.net";
    leaky.request.headers.authorization = "Bearer s3cr3t-t0ken-value";
    leaky.request.body = { kind: "text", text: JSON.stringify(body) };
    const bad = writeNdjson(dir, "bad.ndjson", [leaky]);
    for (const format of ["text", "json", "junit", "sarif", "github"]) {
      const out = runCli(["webhooks", bad, "--format", format]);
      expect(out.status).toBe(1);
      expect(out.stdout).toContain("/phone_number");
      for (const secret of [
        "64 21 555 0199",
        "Tautahi-Brown",
        "198.51.100.23",
        "kiri.tautahi@example.net",
        "s3cr3t-t0ken-value",
      ]) {
        expect(out.stdout).not.toContain(secret);
      }
    }
  });
});
