// The workflows of arazzo/ run by a tool this project did not write: `redocly respect`, through
// `idv-conformance proxy --sign` (the proxy adds the v2 and v4 credentials; Respect has none), against
// the sandbox. Each workflow's steps and their verdicts are pinned; the steps Respect cannot run
// (docs/other-tools.md, "Redocly Respect") are pinned as the failure they measurably are. A sandbox
// broken in one rule of a journey makes the workflows that state the rule fail at that step.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArazzo } from "../../scripts/arazzo/load-yaml.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { type StartedSandbox, startSandbox } from "../../sandbox/start-sandbox.js";
import { type Break, editJson, startBrokenFront } from "./support/breaking-front.js";
import { type RespectRun, runRespect } from "./support/respect.js";

const files = loadArazzo(ROOT);
const paths = files.map((f) => f.path);
const fileOf = (name: string): string => `arazzo/${name}.arazzo.yaml`;

/** Each step Respect ran: its id, the status it got, and any criterion that failed. */
const EXPECTED: Record<string, string[]> = {
  "biometric-error-then-new": ["create 200", "createAgain 200"],
  // The steps after an awaited event need the verification completed, which the event tells:
  // Respect does not wait for events, so the PDF is refused as not completed.
  "biometric-pending-then-pdf": ["create 200", "pdf 400 ✗ $statusCode == 200"],
  "biometric-resend-then-pdf": [
    "create 200",
    "resend 200",
    "originalPdf 400",
    "pdf 400 ✗ $statusCode == 200",
  ],
  "biometric-review-then-pdf": ["create 200", "pdf 400 ✗ $statusCode == 200"],
  // The upload sends the PDF beside the workflow ($file('kowhai-family-trust-deed.pdf')).
  "edd-case-upload-complete": ["create 200", "upload 200", "read 200", "status 200", "readStatus 200"],
  "fraud-analytic": ["create 200"],
  "kyb-search-verify-pdf": ["search 200", "create 200", "pdf 200", "pdfAgain 400"],
  // Respect sends no body for the `{}` payload the export requires.
  "manual-verification-export": ["create 200", "export 422 ✗ $statusCode == 200"],
  "pep-check-pdf": ["create 200", "pdf 200", "pdfAgain 400"],
  "property-search-ownership-title": [
    "search 200",
    "ownership 200",
    "ownershipPdf 200",
    "ownershipPdfAgain 400",
    "titleSearch 200",
    "titleDocument 200",
  ],
};

let sandbox: StartedSandbox;
let dir: string;
const credentials = () => ({ key: sandbox.key, secret: sandbox.secret });
const logs = (name: string): string => mkdtempSync(join(dir, `${name}-`));

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), "idv-respect-"));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("redocly respect runs every workflow through idv-conformance proxy --sign", () => {
  let run: RespectRun;
  let har: string;
  beforeAll(async () => {
    const at = logs("all");
    run = await runRespect({
      upstream: sandbox.url,
      credentials: credentials(),
      files: paths,
      dir: at,
      record: join(at, "run.har"),
    });
    har = readFileSync(join(at, "run.har"), "utf8");
  }, 120_000);

  it("runs every workflow of arazzo/", () => {
    const ids = files.flatMap((f) => f.document.workflows.map((w: { workflowId: string }) => w.workflowId));
    expect([...run.workflows.keys()].sort()).toEqual(ids.sort());
    expect(Object.keys(EXPECTED).sort()).toEqual(ids.sort());
  });

  it.each(Object.entries(EXPECTED))("%s: each step as pinned", (id, lines) => {
    expect(run.workflows.get(id)).toEqual(lines);
  });

  it("the proxy finds every exchange conforming, but the upload's generic part type and the export Respect sent without its body", () => {
    const failed = run.report.entries.filter((e: { ok: boolean }) => !e.ok);
    // Respect sends the $file() part as application/octet-stream: the sandbox takes it by its
    // file name (.pdf), the checker holds the part's type to x-file-constraints' media types.
    expect(failed.map((e: { operationId: string }) => e.operationId)).toEqual([
      "uploadEddCaseFile",
      "exportAndArchiveManualVerification",
    ]);
    for (const entry of failed)
      expect(entry.violations.map((v: { check: string }) => v.check)).toEqual(["request_body_schema"]);
    expect(run.report.summary.entries).toBeGreaterThanOrEqual(25);
    // Respect failed some workflows (above), so the proxy's run fails.
    expect(run.status).toBe(1);
  });

  it("the credentials the proxy added are nowhere in the output or the recording", () => {
    for (const text of [run.output, har]) {
      expect(text).not.toContain(sandbox.key);
      expect(text).not.toContain(sandbox.secret);
    }
    // The recording keeps that they were sent: the v4 date, the signature redacted.
    expect(har).toMatch(/"name":\s*"Svc-Signature",\s*"value":\s*"\[redacted\]"/);
    expect(har).toMatch(/"name":\s*"Svc-Secret",\s*"value":\s*"\[redacted\]"/);
  });
});

// "unexpected error" is Respect's check for outputs it could not read (the member the failed
// criterion asked for is missing, so the step's outputs are too).

/** A break: which documents to run, the rule broken, and the lines of the workflows that state it. */
const BREAKS: [rule: string, documents: string[], broken: Break, expected: Record<string, string[]>][] = [
  [
    "a downloaded PDF is archived (a second download is refused)",
    ["pep-checks", "kyb-verifications", "property-verification"],
    (() => {
      // The first answer to each PDF path, served again: nothing is archived.
      const first = new Map<string, ReturnType<Break>>();
      return (method, path, answer) => {
        if (method !== "GET" || !path.includes("/pdf/")) return answer;
        const kept = first.get(path);
        if (kept) return kept;
        first.set(path, answer);
        return answer;
      };
    })(),
    {
      "pep-check-pdf": [
        "create 200",
        "pdf 200",
        "pdfAgain 200 ✗ $statusCode == 400; $response.body#/error_code == 'ALREADY_ARCHIVED'",
      ],
      "kyb-search-verify-pdf": [
        "search 200",
        "create 200",
        "pdf 200",
        "pdfAgain 200 ✗ $statusCode == 400; $response.body#/error_code == 'ALREADY_ARCHIVED'",
      ],
      "property-search-ownership-title": [
        "search 200",
        "ownership 200",
        "ownershipPdf 200",
        "ownershipPdfAgain 200 ✗ $statusCode == 400; $response.body#/error_code == 'ALREADY_ARCHIVED'",
      ],
    },
  ],
  [
    "a resend creates a new verification (a new transaction_id)",
    ["biometric-verification"],
    (method, path, answer) =>
      method === "PUT" && path.startsWith("/api/v2/resend_text/") && answer.status === 200
        ? editJson(answer, (body) => (body.transaction_id = path.split("/").pop()))
        : answer,
    {
      "biometric-resend-then-pdf": [
        "create 200",
        "resend 200 ✗ $response.body#/transaction_id != $steps.create.outputs.transactionId",
      ],
    },
  ],
  [
    "a verification sent as a link carries its start_process_url",
    ["biometric-verification"],
    (method, path, answer) =>
      method === "POST" && path === "/api/v2/send_text" && answer.status === 200
        ? editJson(answer, (body) => delete body.start_process_url)
        : answer,
    {
      "biometric-review-then-pdf": [
        "create 200 ✗ $response.body#/start_process_url != null; unexpected error",
      ],
    },
  ],
  [
    "a company search finds the company",
    ["kyb-verifications"],
    (method, path, answer) =>
      method === "POST" && path === "/api/v4/kyb_verifications/companies" && answer.status === 200
        ? editJson(answer, (body) => (body.companies = []))
        : answer,
    { "kyb-search-verify-pdf": ["search 200 ✗ $response.body#/companies/0/id != null; unexpected error"] },
  ],
];

describe("a sandbox broken in one rule of a journey fails the workflows that state it", () => {
  it.each(BREAKS)("%s", { timeout: 120_000 }, async (_rule, documents, broken, expected) => {
    const front = await startBrokenFront(sandbox.url, broken);
    try {
      const run = await runRespect({
        upstream: front.url,
        credentials: credentials(),
        files: documents.map(fileOf),
        workflows: Object.keys(expected),
        dir: logs("broken"),
      });
      expect(Object.fromEntries(run.workflows)).toEqual(expected);
      expect(run.status).toBe(1);
    } finally {
      await front.close();
    }
  });

  it(
    "a proxy that does not sign: every step needing credentials is refused",
    { timeout: 120_000 },
    async () => {
      const run = await runRespect({
        upstream: sandbox.url,
        credentials: credentials(),
        files: [fileOf("pep-checks"), fileOf("kyb-verifications")],
        dir: logs("unsigned"),
        sign: false,
      });
      expect(Object.fromEntries(run.workflows)).toEqual({
        "pep-check-pdf": [
          "create 401 ✗ $statusCode == 200; $response.body#/id != null; $response.body#/is_pep_watchlist_clear != null; unexpected error",
        ],
        "kyb-search-verify-pdf": [
          "search 401 ✗ $statusCode == 200; $response.body#/companies/0/id != null; unexpected error",
        ],
      });
      expect(run.status).toBe(1);
    },
  );
});
