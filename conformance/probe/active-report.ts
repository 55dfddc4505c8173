// The reports of the active tests (`probe` and `receiver`): what was sent, what came back, which
// checks failed, and a command that sends the same request again. Like every report of the suite,
// they quote no value the peer sent: statuses, the contract's own words, and what the test itself sent.
import type { Writable } from "node:stream";
import { write } from "../findings/report-sink.js";
import { stepSummaryFile } from "../findings/github.js";
import { type ReportFormat, xml } from "../findings/reporters.js";
import { jsonText } from "../findings/shown.js";
import { writeActiveGithub } from "./active-github.js";
import { activeContracts } from "./active-place.js";
import {
  type ActiveReport,
  type ActiveResult,
  type ActiveSummary,
  findingLine,
  phaseSummaries,
  resultName,
  summarize,
} from "./active-result.js";
import { activeSarif } from "./active-sarif.js";

export {
  type ActiveFinding,
  type ActiveReport,
  type ActiveResult,
  type ActiveSummary,
  type LatencyRow,
  latencyRows,
  percentile,
  phaseSummaries,
  RECEIVED_EVENT,
  summarize,
} from "./active-result.js";

/** What the SARIF and GitHub formats add to a report. */
export interface ActiveReportOptions {
  /** The contracts the run was made from, to place results on their source lines (default: the bundled ones). */
  contracts?: { openapi?: unknown; asyncapi?: unknown };
  /** The GitHub job summary file (default: $GITHUB_STEP_SUMMARY; none when unset). */
  stepSummary?: string | undefined;
}

/** Write a report in a format. */
export async function writeActiveReport(
  format: ReportFormat,
  report: ActiveReport,
  out: Writable,
  options: ActiveReportOptions = {},
): Promise<void> {
  if (format === "sarif" || format === "github") {
    const contracts = await activeContracts(options.contracts);
    if (format === "sarif") return write(out, `${jsonText(activeSarif(report, contracts), 2)}\n`);
    const stepSummary = "stepSummary" in options ? options.stepSummary : stepSummaryFile();
    return writeActiveGithub(report, contracts, out, stepSummary);
  }
  const summary = summarize(report.results);
  if (format === "json") {
    await write(
      out,
      `${JSON.stringify(
        {
          title: report.title,
          target: report.target,
          summary,
          phases: phaseSummaries(report.results),
          latency: report.latency,
          notes: report.notes,
          results: report.results,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  if (format === "junit") {
    await write(out, junit(report, summary));
    return;
  }
  await write(out, text(report, summary));
}

function junit(report: ActiveReport, summary: ActiveSummary): string {
  const phases = new Map<string, ActiveResult[]>();
  for (const r of report.results) phases.set(r.phase, [...(phases.get(r.phase) ?? []), r]);
  let body = "";
  for (const [phase, results] of phases) {
    const failed = results.filter((r) => !r.ok).length;
    const seconds = results.reduce((s, r) => s + r.ms, 0) / 1000;
    body += `  <testsuite name="${xml(`${report.title} ${phase}`)}" tests="${results.length}" failures="${failed}" errors="0" skipped="0" time="${seconds.toFixed(3)}">\n`;
    for (const r of results) {
      body += `    <testcase classname="${xml(r.operationId ?? phase)}" name="${xml(resultName(r))}" time="${(r.ms / 1000).toFixed(3)}">\n`;
      if (!r.ok) {
        const first = r.violations[0];
        const detail = [
          ...r.violations.map(findingLine),
          ...(r.seed === undefined ? [] : ["", `Seed: ${r.seed}`]),
          ...(r.curl ? ["", "Reproduce:", r.curl] : []),
        ];
        body += `      <failure message="${xml(first ? `${first.check}: ${first.message}` : "failed")}" type="${xml(first?.check ?? "probe")}">${xml(detail.join("\n"))}</failure>\n`;
      }
      if (r.warnings.length > 0)
        body += `      <system-out>${xml(r.warnings.map((w) => `warning: ${findingLine(w)}`).join("\n"))}</system-out>\n`;
      body += "    </testcase>\n";
    }
    body += "  </testsuite>\n";
  }
  const counts = `tests="${summary.requests}" failures="${summary.failed}" errors="0" skipped="0"`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(report.title)}" ${counts}>\n${body}</testsuites>\n`;
}

function text(report: ActiveReport, summary: ActiveSummary): string {
  const lines: string[] = [`${report.title}: ${report.target}`, ""];
  for (const r of report.results) {
    if (r.violations.length === 0 && r.warnings.length === 0) continue;
    lines.push(`${r.ok ? "!" : "✗"} ${resultName(r)}${r.status ? `, ${Math.round(r.ms)} ms` : ""}`);
    for (const f of r.violations) lines.push(`    ${findingLine(f)}`);
    for (const f of r.warnings) lines.push(`    warning: ${findingLine(f)}`);
    if (r.seed !== undefined) lines.push(`    seed: ${r.seed}`);
    if (!r.ok && r.curl) lines.push("    reproduce:", ...r.curl.split("\n").map((l) => `      ${l}`));
    lines.push("");
  }
  if (report.latency.length > 0) {
    const rows = [
      ["Operation", "requests", "p50 ms", "p99 ms"],
      ...report.latency.map((l) => [l.operationId, String(l.requests), l.p50.toFixed(1), l.p99.toFixed(1)]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
    for (const row of rows)
      lines.push(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "));
    lines.push("");
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (report.notes.length > 0) lines.push("");
  if (report.results.length > 0) lines.push(...phaseTable(report.results), "");
  lines.push(
    `${summary.requests} request${summary.requests === 1 ? "" : "s"}: ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warning${summary.warnings === 1 ? "" : "s"}`,
  );
  return `${lines.join("\n")}\n`;
}

/** The closing summary of the text report: one row per phase (or group). */
function phaseTable(results: ActiveResult[]): string[] {
  const rows = [
    ["Phase", "requests", "passed", "failed", "warnings"],
    ...phaseSummaries(results).map((p) => [p.phase, p.requests, p.passed, p.failed, p.warnings].map(String)),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  return rows.map((row) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "),
  );
}
