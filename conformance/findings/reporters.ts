import type { Writable } from "node:stream";
import type { EntryResult, Finding, Summary } from "./findings.js";
import { bundledContractFile, type ContractFile } from "./contract-location.js";
import { loadSourceTables, tableOf } from "./contract-source.js";
import { type CoverageSummary, GithubReporter, stepSummaryFile } from "./github.js";
import { Spool, write } from "./report-sink.js";
import { SarifReporter } from "./sarif.js";
import { jsonText, shownText, xmlText } from "./shown.js";

export { xml } from "./shown.js";

/** Receives every entry's result as it is made, and writes the report at the end. */
export interface Reporter {
  add(result: EntryResult): Promise<void> | undefined;
  finish(summary: Summary, out: Writable): Promise<void>;
  /** Release any temporary resources when the run fails. */
  abort(): Promise<void>;
}

/** The report formats. */
export type ReportFormat = "text" | "json" | "junit" | "sarif" | "github";

/** What some formats add to the findings. */
export interface ReporterOptions {
  /** The contract checked against, for SARIF's related locations (default: the bundled OpenAPI contract). */
  contract?: ContractFile;
  /** The --spec contract's document when the run has read it already (else SARIF reads it). */
  document?: unknown;
  /** The GitHub job summary file (default: $GITHUB_STEP_SUMMARY; none when unset). */
  stepSummary?: string;
  /** Coverage of the contract for the GitHub job summary, asked for when the run ends. */
  coverage?: () => CoverageSummary | undefined;
}

/** A reporter for a format. */
export async function createReporter(
  format: ReportFormat,
  title = "idv-conformance",
  unmatched = "(no matching operation)",
  options: ReporterOptions = {},
): Promise<Reporter> {
  if (format === "json") return new JsonReporter(await Spool.create());
  if (format === "junit") return new JunitReporter(await Spool.create(), title);
  if (format === "sarif") {
    const contract = options.contract ?? bundledContractFile("openapi");
    const document = options.document ?? (await contractDocument(contract));
    // The source lines of the bundled contract, for a contract of its digest (a --spec copy of it too).
    const sources = tableOf((await loadSourceTables())[contract.kind], document);
    return new SarifReporter(await Spool.create(), { ...contract, document }, sources);
  }
  if (format === "github") {
    const stepSummary = "stepSummary" in options ? options.stepSummary : stepSummaryFile();
    return new GithubReporter(await Spool.create(), title, unmatched, {
      stepSummary,
      coverage: options.coverage,
    });
  }
  return new TextReporter(unmatched);
}

/**
 * The contract's document, to point at parts it really has: the bundled one, or the --spec file when
 * the run has not read it in this thread (the checker has already refused one it cannot use; should it
 * fail now, pointers go unchecked).
 */
async function contractDocument(contract: ContractFile): Promise<unknown> {
  if (!contract.bundled) {
    const read =
      contract.kind === "openapi"
        ? (await import("../checks/load-contract.js")).readContract
        : (await import("../checks/webhooks.js")).readAsyncApi;
    return read(contract.uri).catch(() => undefined);
  }
  const imported =
    contract.kind === "openapi"
      ? await import("../../generated/openapi.json", { with: { type: "json" } })
      : await import("../../generated/asyncapi.json", { with: { type: "json" } });
  return imported.default;
}

class JsonReporter implements Reporter {
  private first = true;
  constructor(private readonly spool: Spool) {}

  add(result: EntryResult) {
    const chunk = `${this.first ? "" : ",\n"}    ${jsonText(result)}`;
    this.first = false;
    return this.spool.append(chunk);
  }

  finish(summary: Summary, out: Writable) {
    const head = `{\n  "summary": ${jsonText(summary)},\n  "entries": [\n`;
    return this.spool.drainInto(out, head, `${this.first ? "" : "\n"}  ]\n}\n`);
  }

  abort() {
    return this.spool.discard();
  }
}

/** One finding as a line: where, which check, and the message (never a recorded value). */
export const findingLine = (f: Finding): string => `${f.in} ${f.pointer || "/"} [${f.check}]: ${f.message}`;

/** Where an entry is, and its method and path when it was read far enough to have them. */
const entryName = (r: EntryResult): string =>
  [
    ...(r.file ? [r.file] : []),
    r.line === undefined ? `entry ${r.index}` : `line ${r.line}`,
    ...(r.method ? [r.method] : []),
    ...(r.path ? [r.path] : []),
  ].join(" ");

class JunitReporter implements Reporter {
  constructor(
    private readonly spool: Spool,
    private readonly title: string,
  ) {}

  add(r: EntryResult) {
    // Each line shown as text (xmlText): a newline in a file name would start a line of its own.
    const lines = (texts: string[]) => texts.map(xmlText).join("\n");
    let chunk = `    <testcase classname="${xmlText(r.operationId ?? "unmatched")}" name="${xmlText(entryName(r))}">\n`;
    if (!r.ok) {
      const first = r.violations[0];
      const message = first ? `${first.check}: ${first.message}` : "does not conform";
      chunk += `      <failure message="${xmlText(message)}" type="${xmlText(first?.check ?? "conformance")}">${lines(r.violations.map(findingLine))}</failure>\n`;
    }
    if (r.warnings.length > 0) {
      chunk += `      <system-out>${lines(r.warnings.map((w) => `warning: ${findingLine(w)}`))}</system-out>\n`;
    }
    return this.spool.append(`${chunk}    </testcase>\n`);
  }

  finish(summary: Summary, out: Writable) {
    const counts = `tests="${summary.entries}" failures="${summary.failed}" errors="0" skipped="0"`;
    const head = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlText(this.title)}" ${counts}>\n  <testsuite name="${xmlText(this.title)}" ${counts}>\n`;
    return this.spool.drainInto(out, head, "  </testsuite>\n</testsuites>\n");
  }

  abort() {
    return this.spool.discard();
  }
}

/** How many findings of one operation and check the text report shows before it only counts them. */
const SHOWN_PER_GROUP = 20;

interface Group {
  count: number;
  lines: string[];
}

interface OperationGroup {
  label: string;
  entries: number;
  failed: number;
  violations: Map<string, Group>;
  warnings: Map<string, Group>;
}

/** Text for a terminal: grouped by operation, then by check. Keeps only what it shows, so memory is bounded. */
class TextReporter implements Reporter {
  private readonly operations = new Map<string, OperationGroup>();

  /** @param unmatched the heading of entries that matched nothing in the contract */
  constructor(private readonly unmatched: string) {}

  add(r: EntryResult): undefined {
    const key = r.operationId ?? this.unmatched;
    let group = this.operations.get(key);
    if (!group) {
      const label = shownText(key);
      group = { label, entries: 0, failed: 0, violations: new Map(), warnings: new Map() };
      this.operations.set(key, group);
    }
    group.entries++;
    if (!r.ok) group.failed++;
    if (r.violations.length === 0 && r.warnings.length === 0) return undefined;
    const where = entryName(r);
    const collect = (into: Map<string, Group>, findings: Finding[]) => {
      for (const f of findings) {
        const g = into.get(f.check) ?? { count: 0, lines: [] };
        g.count++;
        if (g.lines.length < SHOWN_PER_GROUP)
          g.lines.push(shownText(`${where}: ${f.in} ${f.pointer || "/"}: ${f.message}`));
        into.set(f.check, g);
      }
    };
    collect(group.violations, r.violations);
    collect(group.warnings, r.warnings);
    return undefined;
  }

  async finish(summary: Summary, out: Writable) {
    const lines: string[] = [];
    const sorted = [...this.operations.values()].sort(
      (a, b) => b.failed - a.failed || a.label.localeCompare(b.label),
    );
    for (const op of sorted) {
      if (op.violations.size === 0 && op.warnings.size === 0) continue;
      lines.push(`${op.label}: ${op.entries} checked, ${op.failed} failed`);
      const section = (groups: Map<string, Group>, mark: string, noun: string) => {
        for (const [check, g] of [...groups.entries()].sort((a, b) => b[1].count - a[1].count)) {
          lines.push(`  ${mark} ${check} (${g.count} ${noun}${g.count === 1 ? "" : "s"})`);
          for (const line of g.lines) lines.push(`      ${line}`);
          if (g.count > g.lines.length) lines.push(`      … and ${g.count - g.lines.length} more`);
        }
      };
      section(op.violations, "✗", "violation");
      section(op.warnings, "!", "warning");
      lines.push("");
    }
    const passedOps = sorted
      .filter((o) => o.violations.size === 0 && o.warnings.size === 0)
      .map((o) => o.label);
    if (passedOps.length > 0) lines.push(`Conforming without warnings: ${passedOps.join(", ")}`, "");
    if (sorted.length > 0) lines.push(...this.tables(sorted), "");
    lines.push(
      `${summary.entries} checked: ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warning${summary.warnings === 1 ? "" : "s"}`,
    );
    await write(out, `${lines.join("\n")}\n`);
  }

  /** The closing summary: one row per operation, then one per check, as aligned columns. */
  private tables(operations: OperationGroup[]): string[] {
    const count = (groups: Map<string, Group>) => [...groups.values()].reduce((n, g) => n + g.count, 0);
    const byCheck = new Map<string, { violations: number; warnings: number }>();
    for (const op of operations) {
      for (const [check, g] of op.violations) {
        const row = byCheck.get(check) ?? { violations: 0, warnings: 0 };
        row.violations += g.count;
        byCheck.set(check, row);
      }
      for (const [check, g] of op.warnings) {
        const row = byCheck.get(check) ?? { violations: 0, warnings: 0 };
        row.warnings += g.count;
        byCheck.set(check, row);
      }
    }
    const checks = [...byCheck.entries()].sort(
      (a, b) =>
        b[1].violations - a[1].violations || b[1].warnings - a[1].warnings || a[0].localeCompare(b[0]),
    );
    return [
      ...table(
        ["Operation", "checked", "failed", "warnings"],
        operations.map((op) => [op.label, op.entries, op.failed, count(op.warnings)]),
      ),
      ...(checks.length === 0
        ? []
        : [
            "",
            ...table(
              ["Check", "violations", "warnings"],
              checks.map(([c, r]) => [c, r.violations, r.warnings]),
            ),
          ]),
    ];
  }

  async abort() {}
}

/** Rows as aligned columns: the first left-aligned, the numbers right-aligned. */
function table(head: string[], rows: (string | number)[][]): string[] {
  const all = [head, ...rows].map((row) => row.map(String));
  const widths = head.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  return all.map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}
