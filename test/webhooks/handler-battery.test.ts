// `idv-conformance receiver` against createWebhookHandler, in both forms: the node:http listener,
// and the fetch handler behind a small node:http adapter (Request in, Response out).
import { afterAll, describe, expect, it, vi } from "vitest";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { createDeduper, createWebhookHandler, type KnownWebhookEvent } from "../../src/webhooks/index.js";
import { runInProcess } from "../conformance/fixtures/probe/run-cli.js";
import { FORMS, listenerOf, serve } from "./handler-servers.js";

const TOKEN = "tok_battery_3e8f0a";
const WORKFLOW_PATH = "/cases/0c5d93b7e1";

const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
afterAll(() => warn.mockRestore());

describe.each(FORMS)("the receiver battery against the %s form", (form) => {
  it("passes every check, without a warning, and each event is handled once", async () => {
    const handled: KnownWebhookEvent[] = [];
    const options = { dedupe: createDeduper(), on: (event: KnownWebhookEvent) => void handled.push(event) };
    const { url, close } = await serve(
      listenerOf(form, {
        "/idv/events": createWebhookHandler({ credentials: { scheme: "bearer", token: TOKEN }, ...options }),
        [WORKFLOW_PATH]: createWebhookHandler({ credentials: "none", ...options }),
      }),
    );
    try {
      const run = await runInProcess([
        "receiver",
        `${url}/idv/events`,
        "--auth",
        `bearer:${TOKEN}`,
        "--workflow-url",
        `${url}${WORKFLOW_PATH}`,
        "--format",
        "json",
      ]);
      const report = JSON.parse(run.stdout) as { results: ActiveResult[]; notes: string[] };
      const findings = report.results.flatMap((r) =>
        [...r.violations, ...r.warnings].map((f) => `${r.case}: ${f.check}`),
      );
      expect(findings).toEqual([]);
      expect(report.notes).toEqual([]);
      expect(run.status).toBe(0);
      expect(report.results.find((r) => r.case === "no credentials")?.status).toBe(401);
      expect(report.results.find((r) => r.case === "malformed JSON")?.status).toBe(400);
      // Each event of the contract reached its handler, and no retry the battery sent did twice.
      const events = handled.map((e) => e.event);
      for (const event of [
        "created",
        "completed",
        "updated",
        "archived",
        "error",
        "pending",
        "test",
        "case_completed",
        "case.completed",
      ])
        expect(events, event).toContain(event);
      const keys = handled.map((e) => `${e.event} ${JSON.stringify(e.payload)} ${e.webhookId}`);
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      await close();
    }
  }, 60_000);
});
