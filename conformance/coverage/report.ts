// A coverage report: for each kind, which locations of the contract the traffic reached and which it
// did not. Versioned, sorted, keyed by JSON pointers into the bundled contract, and holding nothing
// recorded (no value, no name from the traffic): safe to keep as a CI artifact.
// A type-only import: the walk of the contract loads only when a run asks for coverage.
import type { ContractIdentity, Universe } from "./universe.js";
import { type CoverageKind, HTTP_KINDS, type SeenLocations, WEBHOOK_KINDS } from "./seen.js";

/** The version of the report's format; a reader refuses any other. */
export const COVERAGE_VERSION = 1;

/** What a report says of one kind. */
export interface KindCoverage {
  total: number;
  covered: number;
  /** covered / total, in percent, rounded down to a tenth (100 when there is nothing to cover). */
  percent: number;
  /** The locations reached and not reached, sorted. */
  seen: string[];
  unseen: string[];
}

/** A coverage report (`--coverage FILE`, `idv-conformance coverage merge`). */
export interface CoverageReport {
  version: typeof COVERAGE_VERSION;
  command: "check" | "webhooks";
  contract: ContractIdentity;
  kinds: Partial<Record<CoverageKind, KindCoverage>>;
}

/** The kinds of a command's report, in order. */
export const kindsOf = (command: "check" | "webhooks"): readonly CoverageKind[] =>
  command === "check" ? HTTP_KINDS : WEBHOOK_KINDS;

/** covered / total in percent, rounded down to a tenth: 99.96 % is not shown as 100. */
export const percentOf = (covered: number, total: number): number =>
  total === 0 ? 100 : Math.floor((covered * 1000) / total) / 10;

/** A percentage as every report writes it (text, JSON's number, the job summary): percentOf, one decimal. */
export const shownPercent = (covered: number, total: number): string => percentOf(covered, total).toFixed(1);

// Sorted by code unit, not locale: the same on every machine. (The default order of `sort` is by UTF-16
// code unit; without a comparator it calls no JavaScript per comparison.)
const sorted = (values: Iterable<string>): string[] => [...values].sort();

/** A kind's coverage from everything it counts and what of it was reached. */
function kindCoverage(all: Set<string>, reached: (location: string) => boolean): KindCoverage {
  const seen: string[] = [];
  const unseen: string[] = [];
  for (const location of sorted(all)) (reached(location) ? seen : unseen).push(location);
  return { total: all.size, covered: seen.length, percent: percentOf(seen.length, all.size), seen, unseen };
}

/**
 * The gaps a set of reached locations touched: those at or above one of them (a gap on an operation is
 * touched by any call of it, one on a schema by any value walked through it).
 */
export function touchedGaps(gaps: Set<string>, reached: Iterable<Set<string>>): Set<string> {
  const touched = new Set<string>();
  for (const set of reached)
    for (const location of set) {
      for (let end = location.indexOf("/", 1); end !== -1; end = location.indexOf("/", end + 1)) {
        const above = location.slice(0, end);
        if (gaps.has(above)) touched.add(above);
      }
      if (gaps.has(location)) touched.add(location);
    }
  return touched;
}

/** The report of a run: the contract's universe and what the run's entries reached of it. */
export function buildReport(
  command: "check" | "webhooks",
  contract: ContractIdentity,
  universe: Universe,
  seen: SeenLocations,
): CoverageReport {
  const reached = new Map(seen.entries());
  const gaps = touchedGaps(universe.get("gaps") ?? new Set(), reached.values());
  const kinds: CoverageReport["kinds"] = {};
  for (const kind of kindsOf(command)) {
    const all = universe.get(kind) ?? new Set<string>();
    const hit = kind === "gaps" ? gaps : (reached.get(kind) ?? new Set<string>());
    kinds[kind] = kindCoverage(all, (location) => hit.has(location));
  }
  return { version: COVERAGE_VERSION, command, contract, kinds };
}

/** Thrown when reports cannot be merged or read; its message names the file and what is wrong. */
export class CoverageMergeError extends Error {
  override name = "CoverageMergeError";
}

/** The coverage of the union of the traffic of several reports of one contract. */
export function mergeReports(reports: { file: string; report: CoverageReport }[]): CoverageReport {
  const first = reports[0];
  if (!first) throw new CoverageMergeError("no coverage report to merge");
  const { command, contract } = first.report;
  const kinds: CoverageReport["kinds"] = {};
  for (const { file, report } of reports) {
    if (report.command !== command)
      throw new CoverageMergeError(`${file}: is coverage of \`${report.command}\`, not of \`${command}\``);
    if (report.contract.digest !== contract.digest || report.contract.version !== contract.version)
      throw new CoverageMergeError(
        `${file}: is coverage of another contract (version ${report.contract.version}, ${report.contract.digest}; ` +
          `${first.file} is of version ${contract.version}, ${contract.digest})`,
      );
  }
  for (const kind of kindsOf(command)) {
    const all = new Set<string>([...kindOf(first, kind).seen, ...kindOf(first, kind).unseen]);
    const hit = new Set<string>();
    for (const entry of reports) {
      const k = kindOf(entry, kind);
      if (k.seen.length + k.unseen.length !== all.size || ![...k.seen, ...k.unseen].every((l) => all.has(l)))
        throw new CoverageMergeError(
          `${entry.file}: its ${kind} are not those of ${first.file}, of the same contract`,
        );
      for (const location of k.seen) hit.add(location);
    }
    kinds[kind] = kindCoverage(all, (location) => hit.has(location));
  }
  return { version: COVERAGE_VERSION, command, contract: { ...contract }, kinds };
}

function kindOf(entry: { file: string; report: CoverageReport }, kind: CoverageKind): KindCoverage {
  const found = entry.report.kinds[kind];
  if (!found) throw new CoverageMergeError(`${entry.file}: has no ${kind}`);
  return found;
}
