// idv-conformance coverage merge FILE…: the coverage of the union of the traffic of several
// reports (--coverage files of CI shards, or of runs over several recordings) of one contract.
import type { Writable } from "node:stream";
import {
  type CliIo,
  closeOut,
  openOut,
  parseFlags,
  PROGRAM,
  readArgs,
  shownWord,
  UsageError,
} from "../run/command.js";
import { oneOf } from "../../src/cli/args.js";
import { readReport } from "./read-report.js";
import { shownText } from "../findings/shown.js";
import { CoverageMergeError, type CoverageReport, kindsOf, mergeReports } from "./report.js";
import { reportText } from "./coverage-run.js";
import { belowThresholds, coverageSummary, parseThresholds } from "./summary.js";
import type { CoverageKind } from "./seen.js";

/** The help of `idv-conformance coverage`. */
export const COVERAGE_USAGE = `Usage: idv-conformance coverage merge FILE… [options]

Merge coverage reports (the --coverage files of check or webhooks runs, e.g. of CI shards) of one
contract into the coverage of all their traffic. Reports of another contract, its version or its
digest, are refused.

Options:
  --format json|text      json: the merged report (default); text: its summary
  --out FILE              write it to FILE instead of stdout (the summary then goes to stdout)
  --min-coverage KIND=PCT fail (exit 1) when KIND's merged coverage is below PCT % (repeatable)
  -h, --help              show this help

Exit status: 0 merged (and every --min-coverage met), 1 below a --min-coverage, 2 unusable input.`;

/** The flags of `idv-conformance coverage merge`, by long name. */
export const FLAGS = {
  format: { type: "string" },
  out: { type: "string" },
  "min-coverage": { type: "string", multiple: true },
} as const;

function parse(argv: string[]) {
  const { help, values, positionals } = parseFlags(argv, FLAGS);
  if (help) return { help: true as const };
  const action = positionals[1];
  if (action === undefined) throw new UsageError("coverage needs an action: merge");
  if (action !== "merge") throw new UsageError(`unknown action ${shownWord(action)} (coverage merge)`);
  const files = positionals.slice(2);
  if (files.length === 0) throw new UsageError("coverage merge needs at least one FILE");
  const minCoverage = values["min-coverage"] ?? [];
  // The kinds a threshold may name depend on the reports; either command's are read here, the rest below.
  const thresholds = new Map<CoverageKind, number>();
  for (const value of minCoverage) {
    const command = kindsOf("webhooks").includes(value.split("=")[0] as CoverageKind) ? "webhooks" : "check";
    for (const [kind, min] of parseThresholds([value], command)) thresholds.set(kind, min);
  }
  return {
    help: false as const,
    files,
    format:
      values.format === undefined ? "json" : oneOf(values.format, ["json", "text"] as const, "--format"),
    out: values.out,
    thresholds,
  };
}

/** `idv-conformance coverage merge`: exit 0 merged, 1 below a threshold, 2 unusable input. */
export async function runCoverage(argv: string[], io: CliIo): Promise<number> {
  const args = await readArgs(COVERAGE_USAGE, io, () => parse(argv));
  if (typeof args === "number") return args;
  const out: Writable = args.out ? await openOut(args.out) : io.stdout;
  let merged: CoverageReport;
  try {
    const reports = [];
    for (const file of args.files) reports.push({ file, report: await readReport(file) });
    merged = mergeReports(reports);
    const missing = [...args.thresholds.keys()].filter((kind) => !kindsOf(merged.command).includes(kind));
    if (missing.length > 0)
      throw new CoverageMergeError(
        `--min-coverage: coverage of ${merged.command} has no ${missing.join(", ")} (its kinds: ${kindsOf(merged.command).join(", ")})`,
      );
  } catch (error) {
    if (args.out) await closeOut(out);
    if (!(error instanceof CoverageMergeError)) throw error;
    io.stderr.write(`${PROGRAM}: ${shownText(error.message)}\n`);
    return 2;
  }
  out.write(args.format === "json" ? reportText(merged) : coverageSummary(merged));
  if (args.out) {
    await closeOut(out);
    if (args.format === "json") io.stdout.write(coverageSummary(merged, args.out));
  }
  const short = belowThresholds(merged, args.thresholds);
  for (const line of short) io.stderr.write(`${PROGRAM}: ${line}\n`);
  return short.length === 0 ? 0 : 1;
}
