// The GitHub Actions report: workflow commands the runner reads back exactly as meant (whatever a file
// name or message holds), a title per check, and a job summary appended to $GITHUB_STEP_SUMMARY.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { EntryResult } from "../../conformance/findings/findings.js";
import {
  escapeData,
  escapeProperty,
  jobSummary,
  workflowCommand,
} from "../../conformance/findings/github.js";
import { createReporter } from "../../conformance/findings/reporters.js";
import { CHECK_RULES } from "../../conformance/findings/rules.js";
import { COVERAGE_VERSION, percentOf } from "../../conformance/coverage/report.js";
import { coverageSummary } from "../../conformance/coverage/summary.js";
import { tempDir } from "./support/cli.js";
import { example } from "./support/exchanges.js";
import { Capture, runMain, toHar, toHarEntry } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the runner does with an escaped value (actions/toolkit's unescape, in reverse order). */
const unescape = (s: string) =>
  s
    .replace(/%2C/g, ",")
    .replace(/%3A/g, ":")
    .replace(/%0A/g, "\n")
    .replace(/%0D/g, "\r")
    .replace(/%25/g, "%");

const result = (file: string, line?: number): EntryResult => ({
  file,
  index: 4,
  ...(line === undefined ? {} : { line }),
  method: "POST",
  path: "/api/v4/pep_checks",
  operationId: "createPepCheck",
  ok: false,
  violations: [
    { in: "request.body", check: "request_body_schema", pointer: "/name", message: "must be string" },
  ],
  warnings: [],
});

describe("workflow commands", () => {
  it("escape properties and data so that the runner reads back what was meant", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const property = escapeProperty(s);
        expect(property).not.toMatch(/[,:\p{Cc}]/u);
        const data = escapeData(s);
        expect(data).not.toMatch(/\p{Cc}/u);
        // What holds no other control (nor a line separator, a bidi control or a lone surrogate) is read back exactly.
        const plain = s.replace(
          /[^\r\n\P{Cc}]|[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\uD800-\uDFFF]/gu,
          "",
        );
        expect(unescape(escapeProperty(plain))).toBe(plain);
        expect(unescape(escapeData(plain))).toBe(plain);
      }),
      { numRuns: 300, seed: 34 },
    );
    expect(escapeProperty("a,b:c%\r\n")).toBe("a%2Cb%3Ac%25%0D%0A");
    // The runner writes any other control character as it is: ESC would reach the log's reader.
    expect(escapeData("a\u001b[2Jb\u0085")).toBe("a\\x1b[2Jb\\x85");
  });

  it("name the file, the line and the check", () => {
    expect(workflowCommand(result("traffic/a,b:c.ndjson", 7), result("x").violations[0]!, "error")).toBe(
      "::error file=traffic/a%2Cb%3Ac.ndjson,line=7,title=Request body schema (request_body_schema)::" +
        "line 7 POST /api/v4/pep_checks: request.body /name: must be string",
    );
    // A HAR entry has no line: the annotation is on the file, the entry in the message.
    expect(workflowCommand(result("a.har"), result("x").violations[0]!, "warning")).toMatch(
      /^::warning file=a\.har,title=Request body schema \(request_body_schema\)::entry 4 POST /,
    );
  });

  it("every check has a title", () => {
    for (const rule of Object.values(CHECK_RULES)) expect(rule.title.length).toBeGreaterThan(3);
  });
});

describe("the job summary", () => {
  const summary = { entries: 5, passed: 2, failed: 3, warnings: 1 };
  const operations = new Map([
    ["getEddCase", { entries: 2, failed: 1, violations: 1 }],
    ["createPepCheck", { entries: 2, failed: 2, violations: 3 }],
    ["listCases", { entries: 1, failed: 0, violations: 0 }],
  ]);
  const checks = new Map([["request_body_schema", { violations: 4, warnings: 1 }]]);

  it("gives the totals, the worst operations first, and the checks", () => {
    const md = jobSummary("idv-conformance check", summary, operations, checks);
    expect(md).toContain("| 5 | 2 | 3 | 1 |");
    expect(md.indexOf("| createPepCheck | 2 | 2 | 3 |")).toBeLessThan(
      md.indexOf("| getEddCase | 2 | 1 | 1 |"),
    );
    expect(md).not.toContain("listCases");
    expect(md).toContain("| `request_body_schema` | 4 | 1 |");
    expect(md).not.toContain("Coverage");
  });

  it("adds coverage when it is given", () => {
    const md = jobSummary("t", summary, operations, checks, {
      kinds: [{ kind: "operations", covered: 3, total: 4 }],
    });
    expect(md).toContain("### Coverage of the contract");
    expect(md).toContain("| operations | 3 | 4 | 75.0 |");
  });

  it("writes a percentage as the text and JSON reports do: cut to a tenth, never rounded up", () => {
    // 57 / 230 is 24.78 %: the text and JSON reports say 24.7, so the job summary does too.
    const md = jobSummary("t", summary, operations, checks, {
      kinds: [{ kind: "operations", covered: 57, total: 230 }],
    });
    expect(percentOf(57, 230)).toBe(24.7);
    expect(md).toContain("| operations | 57 | 230 | 24.7 |");
    const kind = { total: 230, covered: 57, percent: percentOf(57, 230), seen: [], unseen: [] };
    const text = coverageSummary({
      version: COVERAGE_VERSION,
      command: "check",
      contract: { format: "openapi", title: "t", version: "1", digest: "" },
      kinds: { operations: kind },
    });
    expect(text).toMatch(/operations +57\/230 +24\.7 %/);
  });

  it("shows a contract's words as text, not as Markdown", () => {
    const md = jobSummary(
      "t",
      summary,
      new Map([["a|b<script>", { entries: 1, failed: 1, violations: 1 }]]),
      checks,
    );
    expect(md).toContain("| a\\|b\\<script\\> |");
  });

  it("is appended to $GITHUB_STEP_SUMMARY, with the coverage asked for when the run ends", async () => {
    const file = join(dir, "summary.md");
    writeFileSync(file, "# before\n");
    let asked = 0;
    const reporter = await createReporter("github", "idv-conformance check", "(none)", {
      stepSummary: file,
      coverage: () => {
        asked++;
        return { kinds: [{ kind: "statuses", covered: 1, total: 2 }] };
      },
    });
    await reporter.add(result("a.ndjson", 1));
    expect(asked).toBe(0);
    const out = new Capture();
    await reporter.finish({ entries: 1, passed: 0, failed: 1, warnings: 0 }, out);
    expect(out.text).toMatch(/^::error file=a\.ndjson,line=1,/);
    expect(out.text).toMatch(/\nidv-conformance check: 1 checked: 0 passed, 1 failed, 0 warnings\n$/);
    const md = readFileSync(file, "utf8");
    expect(md).toMatch(/^# before\n## idv-conformance check: does not conform\n/);
    expect(md).toContain("| createPepCheck | 1 | 1 | 1 |");
    expect(md).toContain("| statuses | 1 | 2 | 50.0 |");
  });

  it("is written by `check --format github` when $GITHUB_STEP_SUMMARY is set, and not otherwise", async () => {
    const har = join(dir, "one.har");
    const x = example("getEddCase");
    x.request.path = "/api/v4/nowhere";
    writeFileSync(har, toHar([toHarEntry(x), toHarEntry(example("getEddCase"))]));
    const file = join(dir, "cli-summary.md");
    writeFileSync(file, "");
    vi.stubEnv("GITHUB_STEP_SUMMARY", file);
    const run = await runMain(["check", har, "--format", "github"]).finally(() => vi.unstubAllEnvs());
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^::error file=.*one\.har,title=Route known \(route_known\)::entry 0 GET /);
    expect(readFileSync(file, "utf8")).toContain("| 2 | 1 | 1 | 0 |");
    // A summary file that cannot be written is one line naming it, never a stack trace.
    vi.stubEnv("GITHUB_STEP_SUMMARY", dir);
    const unwritable = await runMain(["check", har, "--format", "github"]).finally(() => vi.unstubAllEnvs());
    expect(unwritable.status).toBe(2);
    expect(unwritable.stdout).toBe("");
    expect(unwritable.stderr).toBe(`idv-conformance: ${dir}: cannot be written (GITHUB_STEP_SUMMARY)\n`);
    vi.stubEnv("GITHUB_STEP_SUMMARY", "");
    await runMain(["check", har, "--format", "github"]).finally(() => vi.unstubAllEnvs());
    expect(readFileSync(file, "utf8").match(/## idv-conformance/g)).toHaveLength(1);
  });

  it("carries the run's coverage into the job summary with `check --format github --coverage`", async () => {
    const har = join(dir, "covered.har");
    writeFileSync(har, toHar([toHarEntry(example("getEddCase"))]));
    const file = join(dir, "covered-summary.md");
    writeFileSync(file, "");
    vi.stubEnv("GITHUB_STEP_SUMMARY", file);
    const run = await runMain([
      "check",
      har,
      "--format",
      "github",
      "--coverage",
      join(dir, "cov.json"),
    ]).finally(() => vi.unstubAllEnvs());
    expect(run.status).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "cov.json"), "utf8")) as {
      kinds: Record<string, { covered: number; total: number; percent: number }>;
    };
    const operations = report.kinds.operations!;
    expect(operations.covered).toBe(1);
    // The JSON report's own number, as written there.
    expect(readFileSync(file, "utf8")).toContain(
      `| operations | 1 | ${operations.total} | ${operations.percent.toFixed(1)} |`,
    );
  });
});
