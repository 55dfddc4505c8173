// Generated from asyncapi/asyncapi.yaml by `npm run build:asyncapi`. Do not edit: change the source and regenerate.
import type { components } from "./types.js";

type Schemas = components["schemas"];

/** The webhook channels, how each names its events, and where each known event's schemas sit in generated/asyncapi.json. */
export const webhookChannels = {
  biometricWebhook: {
    eventIn: "payload",
    eventMember: "event",
    events: {
      "created": { payload: "/channels/biometricWebhook/messages/created/payload" },
      "completed": { payload: "/channels/biometricWebhook/messages/completed/payload" },
      "updated": { payload: "/channels/biometricWebhook/messages/updated/payload" },
      "archived": { payload: "/channels/biometricWebhook/messages/archived/payload" },
      "error": { payload: "/channels/biometricWebhook/messages/error/payload" },
      "pending": { payload: "/channels/biometricWebhook/messages/pending/payload" },
      "test": { payload: "/channels/biometricWebhook/messages/test/payload" },
    },
  },
  eddCaseCompleted: {
    eventIn: "payload",
    eventMember: "event",
    events: {
      "case_completed": { payload: "/channels/eddCaseCompleted/messages/caseCompleted/payload" },
    },
  },
  workflowCase: {
    eventIn: "header",
    eventMember: "X-Workflow-Event-Type",
    events: {
      "case.completed": { payload: "/channels/workflowCase/messages/caseCompleted/payload", headers: "/channels/workflowCase/messages/caseCompleted/headers", headerNames: ["Content-Type", "X-Workflow-Event-Type", "X-Workflow-Webhook-Id"] },
    },
  },
} as const;

/** The payload type of every known event, by channel and event name. */
export interface WebhookPayloads {
  biometricWebhook: {
    "created": Schemas["BiometricWebhookCreated"];
    "completed": Schemas["BiometricWebhookCompleted"];
    "updated": Schemas["BiometricWebhookUpdated"];
    "archived": Schemas["BiometricWebhookArchived"];
    "error": Schemas["BiometricWebhookError"];
    "pending": Schemas["BiometricWebhookPending"];
    "test": Schemas["BiometricWebhookTest"];
  };
  eddCaseCompleted: {
    "case_completed": Schemas["EddCaseCompletedWebhook"];
  };
  workflowCase: {
    "case.completed": Schemas["WorkflowCaseCompletedWebhook"];
  };
}

/** The headers each known event's message requires (never for an event whose message names none), by channel and event name. */
export interface WebhookRequiredHeaders {
  biometricWebhook: {
    "created": never;
    "completed": never;
    "updated": never;
    "archived": never;
    "error": never;
    "pending": never;
    "test": never;
  };
  eddCaseCompleted: {
    "case_completed": never;
  };
  workflowCase: {
    "case.completed": "Content-Type" | "X-Workflow-Event-Type" | "X-Workflow-Webhook-Id";
  };
}
