import type { EntryResult, Summary } from "../findings/findings.js";
import type { Reporter } from "../findings/reporters.js";

/** Options of a run over many entries. */
export interface RunOptions {
  /** Warnings count as violations: they are moved into `violations` so every format agrees. */
  warningsAsErrors?: boolean;
  /** Called now and then with the number of entries checked so far. */
  onProgress?: (checked: number) => void;
}

/** Promote warnings to violations (for --warnings-as-errors). */
export function promoteWarnings(result: EntryResult): EntryResult {
  if (result.warnings.length === 0) return result;
  const violations = [...result.violations, ...result.warnings];
  return { ...result, violations, warnings: [], ok: false };
}

/** Feed every result of every source to a reporter, and count. */
export async function runAll(
  results: AsyncIterable<EntryResult>,
  reporter: Reporter,
  options: RunOptions = {},
): Promise<Summary> {
  const summary: Summary = { entries: 0, passed: 0, failed: 0, warnings: 0 };
  for await (const raw of results) {
    const result = options.warningsAsErrors ? promoteWarnings(raw) : raw;
    summary.entries++;
    if (result.ok) summary.passed++;
    else summary.failed++;
    summary.warnings += result.warnings.length;
    const pending = reporter.add(result);
    if (pending) await pending;
    if (options.onProgress && (summary.entries & 1023) === 0) options.onProgress(summary.entries);
  }
  return summary;
}
