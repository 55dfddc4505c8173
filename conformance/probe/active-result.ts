// What an active test (`probe`, `receiver`) reports: each request sent, its verdict and findings, the
// run's totals and latency. The report's formats (active-report.ts, active-sarif.ts, active-github.ts)
// all read these; like every report of the suite, they quote no value the peer sent.
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
  /** The seed that reproduces this result (set by a phase that generates its requests). */
  seed?: number;
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

/** One finding as a line: where, which check, and why. */
export const findingLine = (f: ActiveFinding): string =>
  `${f.in} ${f.pointer || "/"} [${f.check}]: ${f.message}`;

/** A result in words: its phase, its case, the request and the status answered. */
export const resultName = (r: ActiveResult): string =>
  `${r.phase}: ${r.case} (${r.method} ${r.path}${r.status ? ` → ${r.status}` : ""})`;

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
