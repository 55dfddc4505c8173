// The GitHub Actions report of an active test (`probe`, `receiver`), made as `check`'s is
// (findings/github.ts): one workflow command per request that failed (`::error`) or warned
// (`::warning`), on the contract's own source line (active-place.ts), titled by its first finding's
// check; its message the case in words, every finding, the seed and the reproducer. Every value is
// escaped as the runner reads it back (shown.ts), so nothing a peer sent, nor a case's words, can end
// the command or start another. With $GITHUB_STEP_SUMMARY, a job summary in Markdown is appended first.
import { appendFile } from "node:fs/promises";
import type { Writable } from "node:stream";
import { write } from "../findings/report-sink.js";
import { escapeData, escapeProperty, markdownText, shownText } from "../findings/shown.js";
import { InputError } from "../traffic/input-error.js";
import { ruleOf } from "./active-checks.js";
import { type ActiveContracts, placeOf } from "./active-place.js";
import {
  type ActiveReport,
  type ActiveResult,
  type ActiveSummary,
  findingLine,
  phaseSummaries,
  resultName,
  summarize,
} from "./active-result.js";

/** One result as a workflow command; undefined for a request that passed without a warning. */
export function activeCommand(contracts: ActiveContracts, r: ActiveResult): string | undefined {
  const lead = r.violations[0] ?? r.warnings[0];
  if (lead === undefined) return undefined;
  const source = placeOf(contracts, r, lead).source;
  const properties = [
    ...(source ? [`file=${escapeProperty(source.uri)}`, `line=${source.line}`, `col=${source.column}`] : []),
    `title=${escapeProperty(`${ruleOf(lead.check)?.title ?? lead.check} (${lead.check})`)}`,
  ];
  const findings = [...r.violations.map(findingLine), ...r.warnings.map((w) => `warning: ${findingLine(w)}`)];
  const message = [
    `${resultName(r)}: ${findings.join("; ")}`,
    ...(r.seed === undefined ? [] : [`seed ${r.seed}`]),
    ...(r.curl ? ["reproduce:", r.curl] : []),
  ].join("\n");
  return `::${r.ok ? "warning" : "error"} ${properties.join(",")}::${escapeData(message)}`;
}

/** How many operations the job summary lists, worst first. */
const WORST_SHOWN = 10;

/** A Markdown table: a header row, its alignment, and rows of cells already shown as text. */
const table = (head: string[], align: string[], rows: string[][]): string[] => [
  `| ${head.join(" | ")} |`,
  `|${align.join("|")}|`,
  ...rows.map((row) => `| ${row.join(" | ")} |`),
  "",
];

/** The job summary: the totals, each phase, the operations with the most failures, the checks, the notes. */
export function activeJobSummary(report: ActiveReport, summary: ActiveSummary = summarize(report.results)) {
  const cell = markdownText;
  const verdict = summary.failed === 0 ? "passed" : "failed";
  const lines = [
    `## ${cell(report.title)}: ${verdict}`,
    "",
    cell(report.target),
    "",
    ...table(
      ["Requests", "Passed", "Failed", "Warnings"],
      ["---:", "---:", "---:", "---:"],
      [[summary.requests, summary.passed, summary.failed, summary.warnings].map(String)],
    ),
  ];
  const phases = phaseSummaries(report.results);
  if (phases.length > 0)
    lines.push(
      "### Phases",
      "",
      ...table(
        ["Phase", "Requests", "Passed", "Failed", "Warnings"],
        ["---", "---:", "---:", "---:", "---:"],
        phases.map((p) => [cell(p.phase), ...[p.requests, p.passed, p.failed, p.warnings].map(String)]),
      ),
    );
  const operations = new Map<string, { requests: number; failed: number }>();
  const checks = new Map<string, { violations: number; warnings: number }>();
  for (const r of report.results) {
    const key = r.operationId ?? `${r.method} ${r.path}`;
    const op = operations.get(key) ?? { requests: 0, failed: 0 };
    op.requests++;
    if (!r.ok) op.failed++;
    operations.set(key, op);
    for (const [list, kind] of [
      [r.violations, "violations"],
      [r.warnings, "warnings"],
    ] as const)
      for (const f of list) {
        const c = checks.get(f.check) ?? { violations: 0, warnings: 0 };
        c[kind]++;
        checks.set(f.check, c);
      }
  }
  const worst = [...operations]
    .filter(([, o]) => o.failed > 0)
    .sort((a, b) => b[1].failed - a[1].failed || a[0].localeCompare(b[0]))
    .slice(0, WORST_SHOWN);
  if (worst.length > 0)
    lines.push(
      "### Operations with the most failures",
      "",
      ...table(
        ["Operation", "Requests", "Failed"],
        ["---", "---:", "---:"],
        worst.map(([key, o]) => [cell(key), String(o.requests), String(o.failed)]),
      ),
    );
  if (checks.size > 0)
    lines.push(
      "### Checks",
      "",
      ...table(
        ["Check", "Violations", "Warnings"],
        ["---", "---:", "---:"],
        [...checks]
          .sort((a, b) => b[1].violations - a[1].violations || a[0].localeCompare(b[0]))
          .map(([check, c]) => [`\`${check}\``, String(c.violations), String(c.warnings)]),
      ),
    );
  if (report.notes.length > 0) lines.push("### Notes", "", ...report.notes.map((n) => `- ${cell(n)}`), "");
  return `${lines.join("\n")}\n`;
}

/**
 * Write the commands and the totals; the job summary first, to `stepSummary` when given: a summary
 * file that cannot be written is one error, and no commands.
 */
export async function writeActiveGithub(
  report: ActiveReport,
  contracts: ActiveContracts,
  out: Writable,
  stepSummary: string | undefined,
): Promise<void> {
  const summary = summarize(report.results);
  if (stepSummary)
    await appendFile(stepSummary, activeJobSummary(report, summary)).catch(() => {
      throw new InputError(stepSummary, "cannot be written (GITHUB_STEP_SUMMARY)");
    });
  for (const r of report.results) {
    const command = activeCommand(contracts, r);
    if (command !== undefined) await write(out, `${command}\n`);
  }
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const total = `${plural(summary.requests, "request")}: ${summary.passed} passed, ${summary.failed} failed, ${plural(summary.warnings, "warning")}`;
  await write(out, `${shownText(report.title)}: ${total}\n`);
}
