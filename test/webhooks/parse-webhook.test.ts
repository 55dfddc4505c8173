import { describe, expect, expectTypeOf, it } from "vitest";
import { parseWebhook, type WebhookError, type WebhookEventOf } from "../../src/webhooks/index.js";
import { checkWebhookPayload } from "../../src/webhooks/parse-webhook.js";
import type { Json } from "../support/contract.js";
import { deliveryOf, exampleDeliveries, personalValues } from "./deliveries.js";

const deliveries = exampleDeliveries();

/** Parse and return the error, failing when there is none. */
function errorOf(body: string | Uint8Array, headers: Record<string, string> = {}): WebhookError {
  const { event, error } = parseWebhook(body, headers);
  expect(event).toBeUndefined();
  if (!error) throw new Error("expected an error");
  return error;
}

describe("parseWebhook accepts every example delivery of the contract", () => {
  it("covers every event of every channel", () => {
    expect(deliveries.map((d) => `${d.channel} ${d.event}`).sort()).toEqual([
      "biometricWebhook archived",
      "biometricWebhook completed",
      "biometricWebhook created",
      "biometricWebhook error",
      "biometricWebhook pending",
      "biometricWebhook test",
      "biometricWebhook updated",
      "eddCaseCompleted case_completed",
      "workflowCase case.completed",
    ]);
  });

  it.each(deliveries.map((d) => [`${d.channel} ${d.event}`, d] as const))("%s", (_name, d) => {
    const { event, error } = parseWebhook(Buffer.from(d.body), d.headers);
    expect(error).toBeUndefined();
    expect(event).toMatchObject({ kind: d.channel, event: d.event, payload: d.payload });
    expect(event?.webhookId).toBe(d.headers["X-Workflow-Webhook-Id"]);
  });

  it("narrows the payload type on kind, then event", () => {
    const { event } = parseWebhook(deliveryOf("completed").body);
    if (event?.kind !== "biometricWebhook" || event.event !== "completed")
      throw new Error("not a completed event");
    expectTypeOf(event).toEqualTypeOf<WebhookEventOf<"completed">>();
    expectTypeOf(event.payload.verification.status).toEqualTypeOf<"pass" | "review" | "fail">();
    expect(event.payload.verification.status).toBe("pass");

    const created = parseWebhook(deliveryOf("created").body).event;
    if (created?.kind !== "biometricWebhook" || created.event !== "created")
      throw new Error("not a created event");
    expectTypeOf(created.payload.verification).toEqualTypeOf<null>();

    const workflow = deliveryOf("case.completed");
    const parsed = parseWebhook(workflow.body, workflow.headers).event;
    if (parsed?.kind !== "workflowCase") throw new Error("not a workflow delivery");
    expectTypeOf(parsed.event).toEqualTypeOf<"case.completed">();
    expectTypeOf(parsed.payload.case_id).toEqualTypeOf<number>();
    expect(parsed.payload.service?.approval_status).toBe("approved");
  });

  it("takes the body as a string, a Buffer or a Uint8Array, and headers as Headers or any-case names", () => {
    const d = deliveryOf("case.completed");
    const lower = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [body, headers] of [
      [d.body, d.headers],
      [Buffer.from(d.body), lower],
      [new TextEncoder().encode(d.body), new Headers(d.headers)],
      [d.body, { ...lower, "x-workflow-webhook-id": [d.headers["X-Workflow-Webhook-Id"] as string] }],
    ] as const) {
      const { event, error } = parseWebhook(body, headers);
      expect(error).toBeUndefined();
      expect(event?.kind).toBe("workflowCase");
    }
  });
});

describe("a tampered delivery is rejected with the right error and pointer", () => {
  const cases: [string, string, (d: Json) => void, Partial<WebhookError> & { in: "payload" | "headers" }][] =
    [
      [
        "a verification status outside pass/review/fail",
        "completed",
        (d) => {
          d.payload.verification.status = "maybe";
        },
        { kind: "schema_violation", pointer: "/verification/status", in: "payload" },
      ],
      [
        "a completed event without its result summary",
        "completed",
        (d) => {
          delete d.payload.verification.result;
        },
        { kind: "schema_violation", pointer: "/verification/result", in: "payload" },
      ],
      [
        "a created event carrying a verification",
        "created",
        (d) => {
          d.payload.verification = { status: "pass" };
        },
        { kind: "schema_violation", pointer: "/verification", in: "payload" },
      ],
      [
        "a phone number without its leading +",
        "created",
        (d) => {
          d.payload.phone_number = "0211234567";
        },
        { kind: "schema_violation", pointer: "/phone_number", in: "payload" },
      ],
      [
        "a date of birth that is not a string",
        "updated",
        (d) => {
          d.payload.verification.data.personal.date_of_birth = 19850702;
        },
        { kind: "schema_violation", pointer: "/verification/data/personal/date_of_birth", in: "payload" },
      ],
      [
        "a tampering check that is not a boolean",
        "completed",
        (d) => {
          d.payload.verification.tampering_checks.details.font_consistency = "yes";
        },
        {
          kind: "schema_violation",
          // The check's name is the sender's, not the contract's: it is masked like any input name.
          pointer: "/verification/tampering_checks/details/[redacted]",
          in: "payload",
        },
      ],
      [
        "a test event without its message",
        "test",
        (d) => {
          delete d.payload.message;
        },
        { kind: "schema_violation", pointer: "/message", in: "payload" },
      ],
      [
        "an EDD event carrying a verification",
        "case_completed",
        (d) => {
          d.payload.verification = {};
        },
        { kind: "schema_violation", pointer: "/verification", in: "payload" },
      ],
      [
        "a workflow case id sent as a string",
        "case.completed",
        (d) => {
          d.payload.case_id = "81234";
        },
        { kind: "schema_violation", pointer: "/case_id", in: "payload" },
      ],
      [
        "an approval status outside approved/denied",
        "case.completed",
        (d) => {
          d.payload.service.approval_status = "maybe";
        },
        { kind: "schema_violation", pointer: "/service/approval_status", in: "payload" },
      ],
      [
        "a workflow delivery without X-Workflow-Webhook-Id",
        "case.completed",
        (d) => {
          delete d.headers["X-Workflow-Webhook-Id"];
        },
        { kind: "schema_violation", pointer: "/X-Workflow-Webhook-Id", in: "headers" },
      ],
      [
        "a workflow delivery without X-Workflow-Event-Type",
        "case.completed",
        (d) => {
          delete d.headers["X-Workflow-Event-Type"];
        },
        { kind: "schema_violation", pointer: "/X-Workflow-Event-Type", in: "headers" },
      ],
      [
        "a workflow delivery that is not application/json",
        "case.completed",
        (d) => {
          d.headers["Content-Type"] = "text/plain";
        },
        { kind: "schema_violation", pointer: "/Content-Type", in: "headers" },
      ],
    ];

  it.each(cases)("%s", (_name, event, tamper, want) => {
    const d = deliveryOf(event);
    tamper(d);
    const error = errorOf(JSON.stringify(d.payload), d.headers);
    expect(error.kind).toBe(want.kind);
    expect(error.pointer).toBe(want.pointer);
    expect(error.issues[0]).toMatchObject({ in: want.in, pointer: want.pointer });
    expect(error.message).toContain(want.pointer);
    // Where and why, never the values: nothing personal from the delivery is repeated.
    const text = JSON.stringify(error);
    for (const value of personalValues(d.payload)) expect(text).not.toContain(value);
    expect(text).not.toContain("0211234567");
    expect(text).not.toContain("19850702");
  });

  it("reports every issue, not only the first", () => {
    const d = deliveryOf("completed");
    d.payload.verification.status = "maybe";
    d.payload.transaction_id = 42;
    const error = errorOf(JSON.stringify(d.payload));
    expect(error.issues.map((i) => i.pointer).sort()).toEqual(["/transaction_id", "/verification/status"]);
    expect(error.message).toMatch(/and 1 more/);
  });
});

describe("bodies that are not deliveries", () => {
  it.each([
    ["truncated JSON holding a name", '{"event":"completed","data":{"firstname":"Sophie"'],
    ["text", "hello"],
    ["an empty body", ""],
  ])("%s is not_json, without repeating the body", (_name, body) => {
    const error = errorOf(body);
    expect(error.kind).toBe("not_json");
    expect(error.message).not.toContain("Sophie");
    expect(error.message).not.toContain("hello");
  });

  it("bytes that are not UTF-8 are not_json", () => {
    expect(errorOf(new Uint8Array([0x7b, 0xff, 0x7d])).kind).toBe("not_json");
  });

  it.each([
    ["an array", "[1,2]"],
    ["an object without event", '{"transaction_id":"x"}'],
    ["an event that is not a string", '{"event":7}'],
    ["a string", '"completed"'],
    ["null", "null"],
  ])("%s is unknown_channel", (_name, body) => {
    expect(errorOf(body).kind).toBe("unknown_channel");
  });
});

describe("an unknown future event type is returned as unknown, never thrown", () => {
  it("a new biometric event value", () => {
    const body = JSON.stringify({ event: "expired", transaction_id: "5f3c9a0e", whatever: [1] });
    expect(parseWebhook(body, { "content-type": "application/json" })).toEqual({
      event: {
        kind: "unknown",
        channel: null,
        event: "expired",
        payload: JSON.parse(body),
        webhookId: undefined,
      },
    });
  });

  it("a new X-Workflow-Event-Type value, with a body the contract does not describe", () => {
    const headers = {
      "Content-Type": "application/json",
      "X-Workflow-Event-Type": "case.reopened",
      "X-Workflow-Webhook-Id": "whk_2",
    };
    expect(parseWebhook('{"case_id":"not checked"}', headers)).toEqual({
      event: {
        kind: "unknown",
        channel: "workflowCase",
        event: "case.reopened",
        payload: { case_id: "not checked" },
        webhookId: "whk_2",
      },
    });
  });
});

describe("names every object answers to", () => {
  it.each([["toString"], ["constructor"], ["__proto__"], ["hasOwnProperty"]])(
    "an event named %s is unknown, not a crash",
    (name) => {
      const result = parseWebhook(JSON.stringify({ event: name, transaction_id: "tx" }), {});
      expect(result.error).toBeUndefined();
      expect(result.event?.kind).toBe("unknown");
    },
  );

  it.each([["constructor"], ["toString"]])(
    "an X-Workflow-Event-Type of %s is unknown, not a crash",
    (name) => {
      const result = parseWebhook("{}", { "x-workflow-event-type": name, "x-workflow-webhook-id": "w-1" });
      expect(result.error).toBeUndefined();
      expect(result.event?.kind).toBe("unknown");
    },
  );

  it("no headers at all is the same as empty headers", () => {
    expect(parseWebhook("{}", null).error?.kind).toBe("unknown_channel");
  });
});

describe("pointers never repeat personal data", () => {
  it("masks a free-form key that looks like a name and a date", () => {
    const delivery = deliveryOf("completed");
    const payload = structuredClone(delivery.payload) as Json;
    payload.verification.tampering_checks.details = { "Aroha Ngata 1985-03-14": "yes" };
    const result = parseWebhook(JSON.stringify(payload), delivery.headers);
    expect(result.error?.kind).toBe("schema_violation");
    expect(result.error?.pointer).toBe("/verification/tampering_checks/details/[redacted]");
    expect(JSON.stringify(result.error)).not.toMatch(/Aroha|1985/);
  });
});

describe("checkWebhookPayload (a payload held as its JSON value)", () => {
  it.each(deliveries.map((d) => [`${d.channel} ${d.event}`, d] as const))(
    "answers as parseWebhook does for %s",
    (_name, d) => {
      expect(checkWebhookPayload(JSON.parse(d.body), d.headers)).toEqual(parseWebhook(d.body, d.headers));
    },
  );

  it("refuses what parseWebhook refuses, with the same error", () => {
    const delivery = deliveryOf("completed");
    const payload = structuredClone(delivery.payload) as Json;
    payload.verification.status = 7;
    const checked = checkWebhookPayload(payload, delivery.headers);
    expect(checked.error?.kind).toBe("schema_violation");
    expect(checked).toEqual(parseWebhook(JSON.stringify(payload), delivery.headers));
  });
});
