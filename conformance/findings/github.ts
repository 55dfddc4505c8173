// The GitHub Actions report: one workflow command (`::error` or `::warning`) per finding, which the
// runner turns into an annotation on the traffic file, and a job summary in Markdown appended to
// $GITHUB_STEP_SUMMARY. Commands are spooled; the summary keeps only counts per operation and check.
import { appendFile } from "node:fs/promises";
import type { Writable } from "node:stream";
import type { EntryResult, Finding, Summary } from "./findings.js";
import { InputError } from "../traffic/input-error.js";
import { Spool } from "./report-sink.js";
import { CHECK_RULES } from "./rules.js";
import { escapeData, escapeProperty, markdownText, shownText } from "./shown.js";

export { escapeData, escapeProperty } from "./shown.js";
import { shownPercent } from "../coverage/report.js";

/** Coverage of the contract, by kind (operations, statuses…), for the job summary. */
export interface CoverageSummary {
  kinds: { kind: string; covered: number; total: number }[];
}

/** One finding as a workflow command. */
export function workflowCommand(r: EntryResult, f: Finding, level: "error" | "warning"): string {
  const where = r.line === undefined ? `entry ${r.index}` : `line ${r.line}`;
  const properties = [
    ...(r.file && r.file !== "-" ? [`file=${escapeProperty(r.file)}`] : []),
    ...(r.line === undefined ? [] : [`line=${r.line}`]),
    `title=${escapeProperty(`${CHECK_RULES[f.check]?.title ?? f.check} (${f.check})`)}`,
  ];
  const message = `${where}${r.method ? ` ${r.method}` : ""}${r.path ? ` ${r.path}` : ""}: ${f.in} ${f.pointer || "/"}: ${f.message}`;
  return `::${level} ${properties.join(",")}::${escapeData(message)}`;
}

interface OperationCounts {
  entries: number;
  failed: number;
  violations: number;
}

/** Markdown table cell text: a pipe, a line break or markup from a contract's words shown as text. */
const cell = markdownText;

/** How many operations the job summary lists, worst first. */
const WORST_SHOWN = 10;

/** The job summary: totals, the worst operations, the checks that failed, and coverage when given. */
export function jobSummary(
  title: string,
  summary: Summary,
  operations: Map<string, OperationCounts>,
  checks: Map<string, { violations: number; warnings: number }>,
  coverage?: CoverageSummary,
): string {
  const lines = [
    `## ${cell(title)}: ${summary.failed === 0 ? "conforms" : "does not conform"}`,
    "",
    "| Checked | Passed | Failed | Warnings |",
    "|---:|---:|---:|---:|",
    `| ${summary.entries} | ${summary.passed} | ${summary.failed} | ${summary.warnings} |`,
    "",
  ];
  const worst = [...operations.entries()]
    .filter(([, o]) => o.failed > 0)
    .sort(
      (a, b) => b[1].failed - a[1].failed || b[1].violations - a[1].violations || a[0].localeCompare(b[0]),
    )
    .slice(0, WORST_SHOWN);
  if (worst.length > 0) {
    lines.push("### Operations with the most failures", "", "| Operation | Checked | Failed | Violations |");
    lines.push("|---|---:|---:|---:|");
    for (const [label, o] of worst)
      lines.push(`| ${cell(label)} | ${o.entries} | ${o.failed} | ${o.violations} |`);
    lines.push("");
  }
  if (checks.size > 0) {
    lines.push("### Checks", "", "| Check | Violations | Warnings |", "|---|---:|---:|");
    const sorted = [...checks.entries()].sort(
      (a, b) => b[1].violations - a[1].violations || a[0].localeCompare(b[0]),
    );
    for (const [check, c] of sorted) lines.push(`| \`${check}\` | ${c.violations} | ${c.warnings} |`);
    lines.push("");
  }
  if (coverage && coverage.kinds.length > 0) {
    lines.push("### Coverage of the contract", "", "| Kind | Covered | Total | % |", "|---|---:|---:|---:|");
    // The one formatter of the text and JSON reports: cut to a tenth, never rounded up.
    for (const k of coverage.kinds)
      lines.push(`| ${cell(k.kind)} | ${k.covered} | ${k.total} | ${shownPercent(k.covered, k.total)} |`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

/** Options of the GitHub report. */
export interface GithubOptions {
  /** The job summary file ($GITHUB_STEP_SUMMARY); none written when undefined. */
  stepSummary?: string;
  /** Coverage to add to the job summary, asked for when the run ends. */
  coverage?: () => CoverageSummary | undefined;
}

/** Writes workflow commands for every finding, then appends the job summary. */
export class GithubReporter {
  private readonly operations = new Map<string, OperationCounts>();
  private readonly checks = new Map<string, { violations: number; warnings: number }>();

  constructor(
    private readonly spool: Spool,
    private readonly title: string,
    private readonly unmatched: string,
    private readonly options: GithubOptions,
  ) {}

  add(r: EntryResult) {
    const key = r.operationId ?? this.unmatched;
    const op = this.operations.get(key) ?? { entries: 0, failed: 0, violations: 0 };
    op.entries++;
    if (!r.ok) op.failed++;
    op.violations += r.violations.length;
    this.operations.set(key, op);
    const count = (f: Finding, kind: "violations" | "warnings") => {
      const c = this.checks.get(f.check) ?? { violations: 0, warnings: 0 };
      c[kind]++;
      this.checks.set(f.check, c);
    };
    for (const f of r.violations) count(f, "violations");
    for (const f of r.warnings) count(f, "warnings");
    const lines = [
      ...r.violations.map((f) => workflowCommand(r, f, "error")),
      ...r.warnings.map((f) => workflowCommand(r, f, "warning")),
    ];
    return lines.length === 0 ? undefined : this.spool.append(`${lines.join("\n")}\n`);
  }

  /** The job summary first: a summary file that cannot be written leaves no commands behind either. */
  async finish(summary: Summary, out: Writable) {
    const file = this.options.stepSummary;
    if (file) {
      const coverage = this.options.coverage?.();
      const markdown = jobSummary(this.title, summary, this.operations, this.checks, coverage);
      await appendFile(file, markdown).catch(async () => {
        await this.spool.discard();
        throw new InputError(file, "cannot be written (GITHUB_STEP_SUMMARY)");
      });
    }
    const total = `${summary.entries} checked: ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warning${summary.warnings === 1 ? "" : "s"}`;
    await this.spool.drainInto(out, "", `${shownText(this.title)}: ${total}\n`);
  }

  abort() {
    return this.spool.discard();
  }
}

/** The job summary file of a GitHub Actions step, when running in one. */
export const stepSummaryFile = (): string | undefined => process.env.GITHUB_STEP_SUMMARY || undefined;
