// The coverage summary a text report ends with, and `--min-coverage` thresholds. Everything shown is
// a location of the contract, told in the contract's words (methods, paths, status keys). A report
// `coverage merge` reads comes from elsewhere: its title, version and locations are shown as text.
import { unescapeToken } from "../../src/contract/json-pointer.js";
import { shownWord, UsageError } from "../run/command.js";
import { shownText } from "../findings/shown.js";
import { type CoverageReport, kindsOf, shownPercent } from "./report.js";
import type { CoverageKind } from "./seen.js";

/** How many locations never reached a summary names per kind; the report file has them all. */
const SHOWN_PER_KIND = 5;

/** `/paths/~1a~1{id}/get` → `GET /a/{id}`. */
function operationLabel(pointer: string): string {
  const [, , path = "", method = ""] = pointer.split("/");
  return `${method.toUpperCase()} ${unescapeToken(path)}`;
}

/** The per-operation lines: the statuses each operation answered, and those it never did. */
function operationLines(report: CoverageReport): string[] {
  const statuses = report.kinds.statuses;
  const operations = report.kinds.operations;
  if (!statuses || !operations) return [];
  const byOperation = new Map<string, { seen: string[]; unseen: string[] }>();
  for (const op of [...operations.seen, ...operations.unseen]) byOperation.set(op, { seen: [], unseen: [] });
  const file = (list: "seen" | "unseen") => (location: string) => {
    const at = location.lastIndexOf("/responses/");
    byOperation.get(location.slice(0, at))?.[list].push(unescapeToken(location.slice(at + 11)));
  };
  statuses.seen.forEach(file("seen"));
  statuses.unseen.forEach(file("unseen"));
  const called = new Set(operations.seen);
  return [...byOperation].map(([op, { seen, unseen }]) => {
    const label = shownText(operationLabel(op)).padEnd(52);
    if (!called.has(op)) return `    ${label} never called`;
    const notSeen = unseen.length > 0 ? `; not seen ${shownText(unseen.join(", "))}` : "";
    return `    ${label} statuses seen ${shownText(seen.join(", ")) || "none"}${notSeen}`;
  });
}

/** The summary of a report, as lines of text; `file`: where the whole report was written, if anywhere. */
export function coverageSummary(report: CoverageReport, file?: string): string {
  const { title, version } = report.contract;
  const lines = [`Coverage of the contract (${shownText(`${title} ${version}`)}):`];
  for (const kind of kindsOf(report.command)) {
    const k = report.kinds[kind];
    if (!k) continue;
    const label = kind === "gaps" ? "gaps touched" : kind;
    lines.push(
      `  ${label.padEnd(18)} ${`${k.covered}/${k.total}`.padStart(9)}  ${shownPercent(k.covered, k.total).padStart(5)} %`,
    );
  }
  const ops = operationLines(report);
  if (ops.length > 0) lines.push("  per operation:", ...ops);
  for (const kind of kindsOf(report.command)) {
    const k = report.kinds[kind];
    const list = kind === "gaps" ? k?.seen : k?.unseen;
    if (!k || !list || list.length === 0 || kind === "operations" || kind === "statuses") continue;
    const more = list.length > SHOWN_PER_KIND ? ` … and ${list.length - SHOWN_PER_KIND} more` : "";
    lines.push(
      `  ${kind === "gaps" ? "gaps the traffic touched (where the contract had to choose)" : `${kind} never reached`}:`,
      ...list.slice(0, SHOWN_PER_KIND).map((l) => `    ${shownText(l)}`),
    );
    if (more) lines.push(`   ${more}${file ? ` (all in ${shownText(file)})` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `--min-coverage KIND=PCT` values, read: the least percentage each kind must reach. */
export function parseThresholds(values: string[], command: "check" | "webhooks"): Map<CoverageKind, number> {
  const kinds = kindsOf(command);
  const out = new Map<CoverageKind, number>();
  for (const value of values) {
    const equals = value.indexOf("=");
    if (equals === -1)
      throw new UsageError(
        `--min-coverage takes KIND=PCT, e.g. statuses=80 (kinds of ${command}: ${kinds.join(", ")})`,
      );
    const kind = value.slice(0, equals);
    const text = value.slice(equals + 1);
    if (!kinds.includes(kind as CoverageKind))
      throw new UsageError(
        `--min-coverage: unknown kind ${shownWord(kind)} (kinds of ${command}: ${kinds.join(", ")})`,
      );
    const percent = /^[0-9]{1,3}(\.[0-9]{1,2})?$/.test(text) ? Number(text) : NaN;
    if (!(percent <= 100))
      throw new UsageError(`--min-coverage ${kind}: ${shownWord(text)} is not a percentage from 0 to 100`);
    out.set(kind as CoverageKind, percent);
  }
  return out;
}

/** The thresholds a report falls short of, each as a line. */
export function belowThresholds(report: CoverageReport, thresholds: Map<CoverageKind, number>): string[] {
  const short: string[] = [];
  for (const [kind, min] of thresholds) {
    const k = report.kinds[kind];
    if (k && k.percent < min)
      short.push(`coverage of ${kind} is ${k.percent.toFixed(1)} %, below --min-coverage ${kind}=${min}`);
  }
  return short;
}
