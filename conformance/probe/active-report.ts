// The reports of the active tests (`probe` and `receiver`): what was sent, what came back, which
// checks failed, and a command that sends the same request again. Like every report of the suite,
// they quote no value the peer sent: statuses, the contract's own words, and what the test itself sent.
import type { Writable } from "node:stream";
import { write } from "../findings/report-sink.js";
import { type ReportFormat, xml } from "../findings/reporters.js";
import type { AnyCheckName } from "./active-checks.js";

/** A violation or warning of an active test. */
export interface ActiveFinding {
  /** Where it points: `response.status`, `response.body`, `receiver.answer`… */
  in: string;
  /** The check that made it: one of the suite's, or an active test's own (active-checks.ts). */
  check: AnyCheckName;
  /** A JSON pointer into that part ("" for the whole). */
  pointer: string;
  message: string;
}

/** One request of an active test and its verdict. */
export interface ActiveResult {
  /** The phase or group it belongs to (`examples`, `negative`, `auth`, `stateful`, `deliveries`…). */
  phase: string;
  /** What this request tries, in words the test chose (never a value the peer sent). */
  case: string;
  operationId: string | null;
  method: string;
  /** The operation's path template, or the kind of URL (`events URL`). */
  path: string;
  /** The status answered; 0 when none came. */
  status: number;
  /** Milliseconds until the status line came. */
  ms: number;
  ok: boolean;
  violations: ActiveFinding[];
  warnings: ActiveFinding[];
  /** A shell command that sends the same request (credentials as variables, never values). */
  curl?: string;
}

/** Latency of one operation over the requests the run sent to it. */
export interface LatencyRow {
  operationId: string;
  requests: number;
  p50: number;
  p99: number;
}

/** Totals of a run. */
export interface ActiveSummary {
  requests: number;
  passed: number;
  failed: number;
  warnings: number;
}

/** A whole report. */
export interface ActiveReport {
  title: string;
  target: string;
  results: ActiveResult[];
  latency: LatencyRow[];
  /** Things the reader must know: phases not run and why, a request budget reached… */
  notes: string[];
}

/** Totals of a list of results. */
export function summarize(results: ActiveResult[]): ActiveSummary {
  let passed = 0;
  let warnings = 0;
  for (const r of results) {
    if (r.ok) passed++;
    warnings += r.warnings.length;
  }
  return { requests: results.length, passed, failed: results.length - passed, warnings };
}

/** The `p`-th percentile (nearest rank) of sorted numbers. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

/** The path of a result that is an event the test received (the probe's awaited events), not a request. */
export const RECEIVED_EVENT = "(event received)";

/** p50 and p99 per operation, over the requests that got an answer. */
export function latencyRows(results: ActiveResult[]): LatencyRow[] {
  const byOperation = new Map<string, number[]>();
  for (const r of results) {
    if (r.status === 0 || r.operationId === null || r.path === RECEIVED_EVENT) continue;
    const list = byOperation.get(r.operationId) ?? [];
    list.push(r.ms);
    byOperation.set(r.operationId, list);
  }
  return [...byOperation.entries()]
    .map(([operationId, times]) => {
      const sorted = times.sort((a, b) => a - b);
      return {
        operationId,
        requests: sorted.length,
        p50: Math.round(percentile(sorted, 50) * 10) / 10,
        p99: Math.round(percentile(sorted, 99) * 10) / 10,
      };
    })
    .sort((a, b) => a.operationId.localeCompare(b.operationId));
}

const findingLine = (f: ActiveFinding): string => `${f.in} ${f.pointer || "/"} [${f.check}]: ${f.message}`;

const resultName = (r: ActiveResult): string =>
  `${r.phase}: ${r.case} (${r.method} ${r.path}${r.status ? ` → ${r.status}` : ""})`;

/** Write a report in a format. */
export async function writeActiveReport(
  format: Exclude<ReportFormat, "sarif" | "github">,
  report: ActiveReport,
  out: Writable,
): Promise<void> {
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
        const detail = [...r.violations.map(findingLine), ...(r.curl ? ["", "Reproduce:", r.curl] : [])];
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

/** Totals of each phase (or group), in the order they ran. */
export function phaseSummaries(results: ActiveResult[]): ({ phase: string } & ActiveSummary)[] {
  const phases = new Map<string, ActiveResult[]>();
  for (const r of results) {
    const list = phases.get(r.phase);
    if (list) list.push(r);
    else phases.set(r.phase, [r]);
  }
  return [...phases].map(([phase, list]) => ({ phase, ...summarize(list) }));
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
