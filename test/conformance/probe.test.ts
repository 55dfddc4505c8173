// `idv-conformance probe`: against the sandbox every phase passes; against the contract mock only
// what a mock cannot know fails; against deployments with one fault each, exactly that check fires.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { startMock, type RunningMock } from "../../mock/server.js";
import { type RunningSandbox, startSandbox } from "../../sandbox/start.js";
import { type ServerFault, startBrokenServer } from "./fixtures/probe/broken-servers.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";
import { tempDir } from "./support/cli.js";

const CREDENTIALS = { apiKey: "probe-test-key-4f1a", secret: "probe-test-secret-9b2e" };

export interface JsonReport {
  summary: { requests: number; passed: number; failed: number; warnings: number };
  results: ActiveResult[];
  latency: { operationId: string; requests: number; p50: number; p99: number }[];
  notes: string[];
}

/** Run the probe with the test's credentials and a JSON report. */
export async function probe(url: string, extra: string[] = []) {
  const run = await runInProcess([
    "probe",
    "--base-url",
    url,
    "--key",
    CREDENTIALS.apiKey,
    "--secret",
    CREDENTIALS.secret,
    "--seed",
    "23",
    "--format",
    "json",
    ...extra,
  ]);
  if (run.status === 2) throw new Error(run.stderr);
  return { status: run.status, report: JSON.parse(run.stdout) as JsonReport, stdout: run.stdout };
}

/** `phase check` of every finding, violations and warnings apart. */
const findings = (report: JsonReport) => ({
  violations: [
    ...new Set(report.results.flatMap((r) => r.violations.map((f) => `${r.phase} ${f.check}`))),
  ].sort(),
  warnings: [
    ...new Set(report.results.flatMap((r) => r.warnings.map((f) => `${r.phase} ${f.check}`))),
  ].sort(),
});

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    credentials: CREDENTIALS,
    journeyDelayMs: 100,
    deliveryTimeoutMs: 1000,
  });
});
afterAll(async () => {
  await sandbox.close();
});

describe("against the sandbox", () => {
  it("every phase passes with no finding; each phase and flow was run", async () => {
    const dir = tempDir();
    const har = join(dir, "probe.har");
    const { status, report, stdout } = await probe(sandbox.url, ["--record", har]);
    expect(findings(report)).toEqual({ violations: [], warnings: [] });
    expect(status).toBe(0);
    const phases = new Map<string, number>();
    for (const r of report.results) phases.set(r.phase, (phases.get(r.phase) ?? 0) + 1);
    for (const phase of ["examples", "negative", "auth", "stateful"])
      expect(phases.get(phase) ?? 0).toBeGreaterThan(10);
    const statusOf = (text: string) =>
      report.results.filter((r) => r.case.includes(text)).map((r) => r.status);
    expect(statusOf("a second PDF, once archived")).toEqual([400, 400, 400]);
    expect(statusOf("a second export, once archived")).toEqual([404]);
    expect(statusOf("the original's PDF, archived by the resend")).toEqual([400]);
    expect(statusOf("read again: the asset is listed")).toEqual([200]);
    expect(statusOf("credentials sent from a browser script").every((s) => s === 400)).toBe(true);
    expect(new Set(statusOf("an id the deployment does not have"))).toEqual(new Set([404]));
    // Every kind of broken rule was sent somewhere.
    const rules = report.results.filter((r) => r.phase === "negative").map((r) => r.case);
    for (const kind of [
      /^required member/,
      /of the wrong type$/,
      /outside its enum$/,
      /undescribed member/,
      /country rule/,
      /media type/,
      /invalid JSON/,
      /invalid UTF-8/,
    ])
      expect(
        rules.some((r) => kind.test(r)),
        String(kind),
      ).toBe(true);
    expect(report.latency.length).toBe(20);
    for (const row of report.latency) expect(row.p99).toBeGreaterThanOrEqual(row.p50);
    // Neither the report nor the recording holds a credential.
    const recording = readFileSync(har, "utf8");
    expect(JSON.parse(recording).log.entries.length).toBe(report.summary.requests);
    for (const text of [stdout, recording]) {
      expect(text).not.toContain(CREDENTIALS.apiKey);
      expect(text).not.toContain(CREDENTIALS.secret);
    }
  }, 120_000);

  it("--read-only sends only GET requests; --max-requests stops the run", async () => {
    const readOnly = await probe(sandbox.url, ["--read-only"]);
    expect(readOnly.status).toBe(0);
    expect(new Set(readOnly.report.results.map((r) => r.method))).toEqual(new Set(["GET"]));
    const capped = await probe(sandbox.url, ["--max-requests", "5"]);
    expect(capped.report.summary.requests).toBe(5);
    expect(capped.report.notes.some((n) => n.startsWith("--max-requests 5 reached"))).toBe(true);
  }, 60_000);
});

describe("against the contract mock", () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0 });
  });
  afterAll(async () => {
    await mock.close();
  });

  it("examples and negative pass; what a stateless mock with no credentials cannot know fails", async () => {
    const { report } = await probe(mock.url);
    expect(findings(report)).toEqual({
      // The mock holds no credentials: it refuses missing ones, never wrong ones.
      violations: ["auth auth_refused", "stateful archived_refused", "stateful unknown_id_not_found"],
      warnings: [],
    });
    const wrongAccepted = report.results.filter((r) => r.phase === "auth" && !r.ok).map((r) => r.case);
    expect(new Set(wrongAccepted)).toEqual(
      new Set(["wrong key", "wrong secret", "wrong signature", "signature over other bytes"]),
    );
  }, 120_000);
});

describe("against deployments with one fault each, exactly that check fires", () => {
  const cases: [ServerFault, string[], string[]][] = [
    [
      "server-error",
      ["--phases", "examples", "--operations", "getManualPepWatchlist"],
      ["examples no_server_error"],
    ],
    [
      "refuses-example",
      ["--phases", "examples", "--operations", "createPepCheck"],
      ["examples example_accepted"],
    ],
    [
      "accepts-undescribed-members",
      ["--phases", "negative", "--operations", "createPepCheck"],
      ["negative negative_refused"],
    ],
    ["ignores-signatures", ["--phases", "auth", "--operations", "createPepCheck"], ["auth auth_refused"]],
    [
      "ignores-browser-origin",
      ["--phases", "auth", "--operations", "createPepCheck"],
      ["auth credentials_at_risk"],
    ],
    [
      "invents-records",
      ["--phases", "stateful", "--operations", "getEddCase"],
      ["stateful unknown_id_not_found"],
    ],
    [
      "never-archives",
      ["--phases", "stateful", "--operations", "createPepCheck,getPepCheckPdf"],
      ["stateful archived_refused"],
    ],
    [
      "loses-created-ids",
      ["--phases", "stateful", "--operations", "createPepCheck,getPepCheckPdf"],
      ["stateful link_followed"],
    ],
    [
      "forgets-uploads",
      [
        "--phases",
        "stateful",
        "--operations",
        "createEddCase,getEddCase,uploadEddCaseFile,updateEddCaseStatus",
      ],
      ["stateful upload_listed"],
    ],
    ["drops-connection", ["--phases", "examples", "--operations", "getPepCheckPdf"], ["examples answered"]],
    [
      "undocumented-status",
      ["--phases", "examples", "--operations", "getPepCheckPdf"],
      ["examples status_code_documented"],
    ],
    ["wrong-error-shape", ["--phases", "stateful", "--operations", "getEddCase"], ["stateful error_shape"]],
    [
      "incomplete-record",
      ["--phases", "examples", "--operations", "createPepCheck"],
      ["examples response_body_schema"],
    ],
    [
      "pdf-as-text",
      ["--phases", "stateful", "--operations", "createPepCheck,getPepCheckPdf"],
      ["stateful response_content_type"],
    ],
    [
      "no-content-disposition",
      ["--phases", "stateful", "--operations", "createPepCheck,getPepCheckPdf"],
      ["stateful response_headers"],
    ],
  ];
  it.each(cases)(
    "%s",
    async (fault, args, expected) => {
      const broken = await startBrokenServer(fault, { url: sandbox.url, ...CREDENTIALS });
      try {
        const healthy = await probe(sandbox.url, args);
        expect(findings(healthy.report).violations, "the same run against the sandbox").toEqual([]);
        const { status, report } = await probe(broken.url, args);
        expect(findings(report)).toEqual({ violations: expected, warnings: [] });
        expect(status).toBe(1);
        const failed = report.results.filter((r) => !r.ok);
        for (const r of failed) expect(r.curl).toMatch(/curl -sS -i -X (GET|POST|PUT|PATCH) /);
      } finally {
        await broken.close();
      }
    },
    60_000,
  );
});
