import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ASYNCAPI_SOURCE, bundleAsyncApi } from "../../scripts/contract/asyncapi-bundle.js";
import { EVENTS_FILE, renderEventsModule } from "../../scripts/contract/asyncapi-events.js";
import { checkMessageExamples, parseAsyncApi } from "../../scripts/contract/asyncapi-validate.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import type { Json } from "../support/contract.js";

const committed = (file: string) => readFileSync(fromRoot(file), "utf8");
const bundled: Json = JSON.parse(committed("generated/asyncapi.json"));

describe("the AsyncAPI bundle", () => {
  it("is fresh: the committed generated/ equals a new bundle of asyncapi/", () => {
    const bundle = bundleAsyncApi(ASYNCAPI_SOURCE);
    expect(committed("generated/asyncapi.json")).toBe(bundle.json);
    expect(committed("generated/asyncapi.yaml")).toBe(bundle.yaml);
    expect(committed(EVENTS_FILE)).toBe(renderEventsModule(bundle.document));
  });

  it("has no external $ref", () => {
    const refs = [...committed("generated/asyncapi.json").matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r?.startsWith("#/"))).toEqual([]);
  });

  it("puts nothing beside a $ref: draft-07, the dialect of AsyncAPI schemas, ignores what is there", () => {
    const beside: string[] = [];
    const walk = (value: Json, path: string): void => {
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}/${i}`));
      else if (value && typeof value === "object") {
        const keys = Object.keys(value);
        if (keys.includes("$ref") && keys.length > 1) beside.push(`${path}: ${keys.join(", ")}`);
        for (const key of keys) walk((value as Record<string, Json>)[key] ?? null, `${path}/${key}`);
      }
    };
    walk(bundled, "");
    expect(beside).toEqual([]);
  });

  it("starts with a do-not-edit notice naming its source", () => {
    expect(committed("generated/asyncapi.yaml").split("\n")[0]).toMatch(
      /^# Generated from asyncapi\/asyncapi\.yaml .*Do not edit/,
    );
    expect(Object.keys(bundled)[0]).toBe("x-generated");
    expect(committed(EVENTS_FILE).split("\n")[0]).toMatch(
      /^\/\/ Generated from asyncapi\/asyncapi\.yaml .*Do not edit/,
    );
  });
});

describe("@asyncapi/parser", () => {
  it("accepts the bundle with zero errors", async () => {
    const report = await parseAsyncApi(bundled);
    // Warnings are reported, not fatal: the parser's style rules may change between versions.
    if (report.warnings.length > 0) console.warn(report.warnings.join("\n"));
    expect(report.errors).toEqual([]);
  });

  it("rejects a document that breaks AsyncAPI 3.0", async () => {
    const broken = structuredClone(bundled);
    broken.operations.sendBiometricEvent.action = "publish";
    const report = await parseAsyncApi(broken);
    expect(report.errors.join("\n")).toMatch(/operations\/sendBiometricEvent\/action/);
  });
});

describe("message examples", () => {
  it("every message example matches its payload and headers schemas (ajv)", () => {
    expect(checkMessageExamples(bundled)).toEqual([]);
  });

  it("a broken example is caught, with its place", () => {
    const broken = structuredClone(bundled);
    broken.channels.biometricWebhook.messages.completed.examples[0].payload.verification.status = "maybe";
    broken.channels.workflowCase.messages.caseCompleted.examples[0].headers["X-Workflow-Event-Type"] =
      "case.opened";
    expect(checkMessageExamples(broken)).toEqual([
      "/channels/biometricWebhook/messages/completed/examples/0 payload/verification/status: must be equal to one of the allowed values",
      "/channels/workflowCase/messages/caseCompleted/examples/0 headers/X-Workflow-Event-Type: must be equal to constant",
    ]);
  });
});
