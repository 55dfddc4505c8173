import { describe, expect, it } from "vitest";
import { deref, type Json, loadAsyncApi, loadOpenApi } from "../support/contract.js";

const doc: Json = loadAsyncApi();
const openapi = loadOpenApi();

/** The members a schema of the bundle declares, through $ref and allOf. */
function members(schema: Json): string[] {
  const node = deref(doc, schema);
  return [...Object.keys(node.properties ?? {}), ...(node.allOf ?? []).flatMap(members)];
}

/** The const a schema puts on a member, through $ref and allOf. */
function constOf(schema: Json, member: string): unknown {
  const node = deref(doc, schema);
  const own = deref(doc, node.properties?.[member])?.const;
  if (own !== undefined) return own;
  for (const part of node.allOf ?? []) {
    const found = constOf(part, member);
    if (found !== undefined) return found;
  }
  return undefined;
}

const messages = (channel: string): Json[] => Object.values(doc.channels[channel].messages);

describe("the AsyncAPI document describes every delivery of the interface document", () => {
  it("is AsyncAPI 3.0 and describes what the service sends", () => {
    expect(doc.asyncapi).toBe("3.0.0");
    for (const op of Object.values<Json>(doc.operations)) expect(op.action).toBe("send");
  });

  it("has the seven biometric events, each with the body members of the document", () => {
    const events = messages("biometricWebhook").map((m) => constOf(m.payload, "event"));
    expect(events.sort()).toEqual([
      "archived",
      "completed",
      "created",
      "error",
      "pending",
      "test",
      "updated",
    ]);
    const body = [
      "event",
      "reference",
      "external_id",
      "phone_number",
      "transaction_id",
      "verification",
      "message",
    ];
    for (const m of messages("biometricWebhook").filter((m) => m.name !== "test"))
      expect(new Set(members(m.payload)), m.name).toEqual(new Set(body));
    expect(new Set(members(doc.channels.biometricWebhook.messages.test.payload))).toEqual(
      new Set(["message", "event"]),
    );
  });

  it("carries the verification result on completed and updated only, null on the others", () => {
    for (const m of messages("biometricWebhook").filter((m) => m.name !== "test")) {
      const own = deref(doc, m.payload).allOf[1].properties.verification;
      if (["completed", "updated"].includes(m.name))
        expect(own.$ref, m.name).toBe("#/components/schemas/BiometricVerificationResult");
      else expect(own.type, m.name).toBe("null");
    }
  });

  it("describes the verification result's parts", () => {
    const result = new Set(members({ $ref: "#/components/schemas/BiometricVerificationResult" }));
    for (const part of [
      "type",
      "status",
      "reviewed",
      "capture",
      "data",
      "device",
      "notes",
      "tampering_checks",
      "biometrics",
      "fraud_analytic",
      "pep",
      "location",
      "data_sources",
      "aply_portal_url",
      "result",
      "pdf",
    ])
      expect(result.has(part), part).toBe(true);
    const tampering = deref(doc, { $ref: "#/components/schemas/BiometricTamperingChecks" });
    expect(tampering.properties.details.additionalProperties).toEqual({ type: "boolean" });
  });

  it("has the EDD case_completed event and the workflow case.completed delivery with its three headers", () => {
    expect(messages("eddCaseCompleted").map((m) => constOf(m.payload, "event"))).toEqual(["case_completed"]);
    const [workflow] = messages("workflowCase");
    expect(constOf(workflow.headers, "X-Workflow-Event-Type")).toBe("case.completed");
    expect(new Set(members(workflow.headers))).toEqual(
      new Set(["Content-Type", "X-Workflow-Event-Type", "X-Workflow-Webhook-Id"]),
    );
    expect(new Set(members(workflow.payload))).toEqual(
      new Set(["case_id", "external_id", "guided_flow_id", "status", "case_url", "service"]),
    );
  });

  it("sends every operation by HTTP POST with its delivery rules as data", () => {
    for (const [id, op] of Object.entries<Json>(doc.operations)) {
      expect(op.bindings?.http?.method, id).toBe("POST");
      expect(op["x-delivery"]?.acknowledge, id).toBe("2xx");
      expect(op["x-delivery"]?.duplicates, id).toBe(true);
      expect(op["x-delivery"]?.unknownEvents, id).toBe("tolerate");
    }
    expect(doc.operations.sendBiometricEvent["x-delivery"]).toMatchObject({
      maxRetries: 8,
      backoff: "exponential",
      lastAttemptAfter: "PT5H",
    });
  });

  it("secures the biometric receiver with http basic, digest or bearer", () => {
    const schemes = doc.servers.biometricReceiver.security.map((s: Json) => deref(doc, s));
    expect(schemes.map((s: Json) => `${s.type} ${s.scheme}`)).toEqual([
      "http basic",
      "http digest",
      "http bearer",
    ]);
  });

  it("has an example for every message", () => {
    for (const [name, channel] of Object.entries<Json>(doc.channels))
      for (const [key, m] of Object.entries<Json>(channel.messages))
        expect(m.examples?.length, `${name}/${key}`).toBeGreaterThan(0);
  });
});

describe("one source for every schema", () => {
  it("every payload is a $ref to a schema the OpenAPI contract holds, identical there", () => {
    let compared = 0;
    for (const channel of Object.values<Json>(doc.channels)) {
      for (const m of Object.values<Json>(channel.messages)) {
        const name = /^#\/components\/schemas\/(\w+)$/.exec(m.payload.$ref)?.[1];
        expect(name, m.name).toBeDefined();
        expect(doc.components.schemas[name as string]).toEqual(openapi.components.schemas[name as string]);
        compared++;
      }
    }
    expect(compared).toBe(9);
  });

  it("every schema the AsyncAPI bundle holds is the OpenAPI contract's", () => {
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      if (name === "WorkflowCaseWebhookHeaders") continue; // headers are parameters in OpenAPI
      expect(schema, name).toEqual(openapi.components.schemas[name]);
    }
  });

  it("the OpenAPI webhooks section lists the same deliveries with the same schemas", () => {
    const bodySchema = (name: string) =>
      openapi.webhooks[name].post.requestBody.content["application/json"].schema.$ref;
    expect(Object.keys(openapi.webhooks).sort()).toEqual([
      "biometric-verification-event",
      "edd-case-completed",
      "workflow-case-completed",
    ]);
    expect(bodySchema("biometric-verification-event")).toBe("#/components/schemas/BiometricWebhookEvent");
    const union = openapi.components.schemas.BiometricWebhookEvent.oneOf.map((s: Json) => s.$ref).sort();
    expect(union).toEqual(
      messages("biometricWebhook")
        .map((m) => m.payload.$ref)
        .sort(),
    );
    expect(bodySchema("edd-case-completed")).toBe(messages("eddCaseCompleted")[0].payload.$ref);
    expect(bodySchema("workflow-case-completed")).toBe(messages("workflowCase")[0].payload.$ref);
  });
});
