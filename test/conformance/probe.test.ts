// `idv-conformance probe`: against the sandbox every phase passes; against the contract mock only
// what a mock cannot know fails; against deployments with one fault each, exactly that check fires.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { startMock, type RunningMock } from "../../mock/server.js";
import { type RunningSandbox, launchSandbox } from "../../sandbox/start.js";
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
  sandbox = await launchSandbox({
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
    // The stateful phase is the workflows of arazzo/: each step is `workflow: step`, each event too.
    const stepStatus = (...cases: string[]) =>
      cases.map((c) => report.results.filter((r) => r.case === c).map((r) => r.status));
    expect(
      stepStatus(
        "pep-check-pdf: pdfAgain",
        "kyb-search-verify-pdf: pdfAgain",
        "property-search-ownership-title: ownershipPdfAgain",
        "manual-verification-export: exportAgain",
        "biometric-resend-then-pdf: originalPdf",
        "edd-case-upload-complete: read",
        "biometric-resend-then-pdf: pdf",
      ),
    ).toEqual([[400], [400], [400], [404], [400], [200], [200]]);
    // Every awaited event arrived at the probe's receiver, the last after the clock was advanced.
    expect(
      stepStatus(
        "biometric-resend-then-pdf: archivedAfterDownload",
        "biometric-error-then-new: error",
        "biometric-review-then-pdf: reviewed",
        "edd-case-upload-complete: caseCompleted",
      ),
    ).toEqual([[200], [200], [200], [200]]);
    expect(report.notes.some((n) => n.includes("registered its receiver"))).toBe(true);
    expect(statusOf("credentials sent from a browser script").every((s) => s === 400)).toBe(true);
    expect(new Set(statusOf("an id the deployment does not have"))).toEqual(new Set([404]));
    // Every kind of broken rule was sent somewhere.
    const rules = report.results.filter((r) => r.phase === "negative").map((r) => r.case);
    for (const kind of [
      /^required member/,
      /of the wrong type$/,
      /longer than its maxLength$/,
      /off its pattern$/,
      /not an integer$/,
      /part "file" missing$/,
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
    // The awaited events the stateful phase received are results too, but no request of the recording.
    const received = report.results.filter((r) => r.path === "(event received)").length;
    expect(received).toBeGreaterThan(10);
    expect(JSON.parse(recording).log.entries.length).toBe(report.summary.requests - received);
    // What `check` on the probe's recording says (docs/probe.md#the-recording): the negative and auth
    // requests break the contract on purpose, so their exchanges fail on the request alone; every
    // other exchange, and every answer, passes as it did live.
    const checked = JSON.parse((await runInProcess(["check", har, "--format", "json"])).stdout) as {
      summary: { entries: number; passed: number; failed: number };
      entries: { violations?: { check: string }[] }[];
    };
    const sent = (phase: string) => report.results.filter((r) => r.phase === phase).length;
    expect(checked.summary.failed).toBeGreaterThan(0);
    expect(checked.summary.failed).toBeLessThanOrEqual(sent("negative") + sent("auth"));
    expect(checked.summary.passed).toBeGreaterThanOrEqual(sent("examples") + sent("stateful") - received);
    const broken = new Set(checked.entries.flatMap((e) => (e.violations ?? []).map((v) => v.check)));
    expect([...broken].sort()).toEqual(
      ["auth_headers_present", "request_body_schema", "request_content_type", "request_parameters"].filter(
        (c) => broken.has(c),
      ),
    );
    expect(broken.size).toBeGreaterThan(0);
    for (const text of [stdout, recording]) {
      expect(text).not.toContain(CREDENTIALS.apiKey);
      expect(text).not.toContain(CREDENTIALS.secret);
    }
  }, 120_000);

  it("--phases examples --record: check on the recording passes every exchange, as the probe did", async () => {
    // Before, the probe passed 33 of 33 here and `check` on its recording failed 20: "[redacted]"
    // met no pattern or format of the contract.
    const har = join(tempDir(), "examples.har");
    const { status, report } = await probe(sandbox.url, ["--phases", "examples", "--record", har]);
    expect(status).toBe(0);
    expect(report.summary.requests).toBeGreaterThan(20);
    const checked = await runInProcess(["check", har, "--format", "json"]);
    expect(JSON.parse(checked.stdout).summary).toEqual({
      entries: report.summary.requests,
      passed: report.summary.requests,
      failed: 0,
      warnings: 0,
    });
    expect(checked.status).toBe(0);
    // The examples on a record whose example id names none here pass as a 404: counted apart.
    const notFound = report.results.filter((r) => r.status === 404);
    expect(notFound.length).toBeGreaterThan(0);
    expect(report.notes).toContainEqual(
      expect.stringMatching(
        new RegExp(`^examples: ${notFound.length} of the ${report.summary.passed} passed were answered 404 `),
      ),
    );
    const recording = readFileSync(har, "utf8");
    // Every value had a stand-in judged as it was: nothing is withheld.
    expect(
      JSON.parse(recording).log.entries.filter((e: { _idvWithheld?: unknown }) => e._idvWithheld),
    ).toEqual([]);
    expect(recording).not.toContain(CREDENTIALS.secret);
  }, 60_000);

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
  let withCredentials: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0 });
    withCredentials = await startMock({ port: 0, credentials: CREDENTIALS });
  });
  afterAll(async () => {
    await mock.close();
    await withCredentials.close();
  });

  it("given the credentials, passes every phase but what a stateless mock cannot know", async () => {
    const { report } = await probe(withCredentials.url);
    expect(findings(report)).toEqual({
      violations: ["stateful success_criterion", "stateful unknown_id_not_found"],
      warnings: [],
    });
  }, 120_000);

  it("without credentials, refuses missing ones but cannot know wrong ones", async () => {
    const { report } = await probe(mock.url);
    expect(findings(report)).toEqual({
      violations: ["auth auth_refused", "stateful success_criterion", "stateful unknown_id_not_found"],
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
      ["stateful success_criterion"],
    ],
    [
      "loses-created-ids",
      ["--phases", "stateful", "--operations", "createPepCheck,getPepCheckPdf"],
      ["stateful success_criterion"],
    ],
    [
      "forgets-uploads",
      [
        "--phases",
        "stateful",
        "--operations",
        "createEddCase,getEddCase,uploadEddCaseFile,updateEddCaseStatus",
      ],
      ["stateful success_criterion"],
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

describe("the command line", () => {
  it("refuses a host that is not loopback unless --allow-host names it, before sending anything", async () => {
    const run = await runInProcess([
      "probe",
      "--base-url",
      "https://api.example.com",
      "--key",
      "k",
      "--secret",
      "s",
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--base-url is not a loopback host");
    expect(run.stderr).toContain("--allow-host");
    const credentialsInUrl = await runInProcess([
      "probe",
      "--base-url",
      "http://user:pw@127.0.0.1:1",
      "--key",
      "k",
      "--secret",
      "s",
    ]);
    expect(credentialsInUrl.status).toBe(2);
    expect(credentialsInUrl.stderr).not.toContain("pw@");
  });

  it("takes the deployment and credentials from IDV_BASE_URL, IDV_API_KEY and IDV_API_SECRET, and says what is missing without them", async () => {
    const names = ["IDV_BASE_URL", "IDV_API_KEY", "IDV_API_SECRET", "IDV_SECRET"] as const;
    const saved = new Map(names.map((n) => [n, process.env[n]]));
    try {
      for (const n of names) delete process.env[n];
      const missing = await runInProcess(["probe", "--base-url", sandbox.url]);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain(
        "probe needs credentials: IDV_API_KEY and IDV_API_SECRET in the environment, or --key and --secret",
      );
      const noUrl = await runInProcess(["probe"]);
      expect(noUrl.stderr).toContain("probe needs --base-url URL (or IDV_BASE_URL in the environment)");
      process.env.IDV_BASE_URL = sandbox.url;
      process.env.IDV_API_KEY = CREDENTIALS.apiKey;
      process.env.IDV_API_SECRET = CREDENTIALS.secret;
      const run = await runInProcess(["probe", "--operations", "createPepCheck", "--format", "json"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect((JSON.parse(run.stdout) as JsonReport).summary.requests).toBeGreaterThan(10);
      // The name before 1.1 still works, with a warning that names the one to use.
      delete process.env.IDV_API_SECRET;
      process.env.IDV_SECRET = CREDENTIALS.secret;
      const old = await runInProcess(["probe", "--operations", "getEddCase", "--format", "json"]);
      expect(old.status).toBe(0);
      expect(old.stderr).toBe("idv-conformance probe: IDV_SECRET is deprecated: name it IDV_API_SECRET\n");
    } finally {
      for (const [n, v] of saved)
        if (v === undefined) delete process.env[n];
        else process.env[n] = v;
    }
  }, 60_000);

  it("refuses an unknown phase and names the phases", async () => {
    const run = await runInProcess([
      "probe",
      "--base-url",
      sandbox.url,
      "--key",
      "k",
      "--secret",
      "s",
      "--phases",
      "examples,fuzz",
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown phase "fuzz" (phases: examples, negative, auth, stateful)');
  });

  it("writes JUnit a CI system reads: a suite per phase, a failure per failed request with its reproducer", async () => {
    const broken = await startBrokenServer("ignores-signatures", { url: sandbox.url, ...CREDENTIALS });
    try {
      const args = ["--phases", "examples,auth", "--operations", "createPepCheck", "--format", "junit"];
      const run = await runInProcess([
        "probe",
        "--base-url",
        broken.url,
        "--key",
        CREDENTIALS.apiKey,
        "--secret",
        CREDENTIALS.secret,
        ...args,
      ]);
      expect(run.status).toBe(1);
      const xml = run.stdout;
      expect(
        xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="idv-conformance probe"'),
      ).toBe(true);
      expect(xml.match(/<testsuite /g)).toHaveLength(2);
      const failures = xml.match(/<failure message="auth_refused: answered 200; expected 401"/g) ?? [];
      expect(failures.length).toBe(4);
      expect(xml).toMatch(/tests="\d+" failures="4" errors="0"/);
      expect(xml).toContain("Reproduce:\nBODY=$&apos;{");
      expect(xml).toContain("curl -sS -i -X POST");
      expect(xml).toContain("openssl dgst -sha256 -hmac &quot;$IDV_API_SECRET&quot;");
      expect(xml).not.toContain(CREDENTIALS.secret);
      // Every element opened is closed: the document is whole.
      expect(xml.match(/<testcase /g)?.length).toBe(xml.match(/<\/testcase>/g)?.length);
      const text = await runInProcess([
        "probe",
        "--base-url",
        broken.url,
        "--key",
        CREDENTIALS.apiKey,
        "--secret",
        CREDENTIALS.secret,
        ...args.slice(0, -2),
      ]);
      expect(text.stdout).toContain("✗ auth: wrong signature (POST /api/v4/pep_checks → 200)");
      expect(text.stdout).toContain('-H "Svc-API-Key: $IDV_API_KEY"');
      expect(text.stdout).toMatch(/createPepCheck\s+\d+\s+[\d.]+\s+[\d.]+/);
    } finally {
      await broken.close();
    }
  }, 60_000);
});

describe("the reproducer", () => {
  it("sends the same request again: run by bash against the sandbox, its v4 signature and v2 secret are accepted", async () => {
    // The broken server refuses the contract's examples; the reproducers, sent to the sandbox itself, are accepted.
    const broken = await startBrokenServer("refuses-example", { url: sandbox.url, ...CREDENTIALS });
    const brokenV2 = await startBrokenServer("server-error", { url: sandbox.url, ...CREDENTIALS });
    try {
      const v4 = await probe(broken.url, ["--phases", "examples", "--operations", "createPepCheck"]);
      const v2 = await probe(brokenV2.url, ["--phases", "examples", "--operations", "getManualPepWatchlist"]);
      const lines = [...v4.report.results, ...v2.report.results]
        .filter((r) => !r.ok)
        .map((r) => r.curl ?? "");
      expect(lines).toHaveLength(2);
      for (const [line, from] of [
        [lines[0]!, broken.url],
        [lines[1]!, brokenV2.url],
      ] as const) {
        expect(line).not.toContain(CREDENTIALS.secret);
        // Not spawnSync: the sandbox answering curl runs in this process.
        const run = await promisify(execFile)("bash", ["-c", line.replace(from, sandbox.url)], {
          env: { ...process.env, IDV_API_KEY: CREDENTIALS.apiKey, IDV_API_SECRET: CREDENTIALS.secret },
          encoding: "utf8",
          timeout: 20_000,
        });
        const status = /^HTTP\/1\.1 (\d{3})/.exec(run.stdout)?.[1];
        // 200 for the PEP check; 404 for the watchlist of an example id the sandbox does not have: not 401.
        expect([line.includes("pep_checks") ? "200" : "404"]).toContain(status);
      }
    } finally {
      await broken.close();
      await brokenV2.close();
    }
  }, 60_000);
});

describe("a host that is not loopback, named by --allow-host", () => {
  it("is probed, and operations on a record get ids it cannot have, never the contract's example ids", async () => {
    // An IPv4-mapped address: this machine, but not a host the probe treats as loopback.
    const url = sandbox.url.replace("127.0.0.1", "[::ffff:127.0.0.1]");
    const refused = await runInProcess(["probe", "--base-url", url, "--key", "k", "--secret", "s"]);
    expect(refused.status).toBe(2);
    const har = join(tempDir(), "remote.har");
    const { status, report } = await probe(url, [
      "--allow-host",
      "::ffff:7f00:1",
      "--read-only",
      "--record",
      har,
    ]);
    expect(status).toBe(0);
    expect(report.notes.some((n) => n.startsWith("not a loopback host"))).toBe(true);
    const urls = (
      JSON.parse(readFileSync(har, "utf8")) as { log: { entries: { request: { url: string } }[] } }
    ).log.entries.map((e) => e.request.url);
    expect(urls.length).toBe(report.summary.requests);
    for (const u of urls) {
      expect(u).not.toMatch(/\/1042(\/|$|\.pdf)/);
      expect(u).not.toContain("5f3c9a0e-8d2b-4f61-9c7a-2b1e4d6f8a90");
    }
    expect(new Set(report.results.filter((r) => r.phase === "examples").map((r) => r.status))).toEqual(
      new Set([404]),
    );
  }, 60_000);
});
