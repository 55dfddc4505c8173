// `idv-conformance check` and `webhooks`: read recorded traffic (or received deliveries), check every
// entry against the contract, in worker threads with --jobs, and write the report (and the coverage
// of the contract with --coverage or --min-coverage).
import type { Writable } from "node:stream";
import type { EntryResult, Summary } from "../findings/findings.js";
import { openSource } from "./open-source.js";
import { createReporter } from "../findings/reporters.js";
import { contractFile } from "../findings/contract-location.js";
import { shownText } from "../findings/shown.js";
import { runAll } from "./run.js";
import {
  type CliIo,
  closeOut,
  openOut,
  parseFlags,
  progress,
  readArgs,
  REPORT_FLAGS,
  reportFormat,
  UsageError,
  wholeNumber,
} from "./command.js";
import type { CoverageRun, CoverageRequest } from "../coverage/coverage-run.js";
import type { CoverageSummary } from "../findings/github.js";
import type { SeenLocations } from "../coverage/seen.js";
import { parseThresholds } from "../coverage/summary.js";

/** With --coverage or --min-coverage, the run's coverage (loaded only then). */
async function startCoverage(request: CoverageRequest): Promise<CoverageRun | undefined> {
  if (request.coverage === undefined && request.thresholds.size === 0) return undefined;
  return (await import("../coverage/coverage-run.js")).startCoverageRun(request);
}

const CHECK_OPTIONS = `Options:
  --spec FILE             the contract (default: the bundled one)
  --format FORMAT         text, json, junit, sarif (SARIF 2.1.0) or github (Actions annotations
                          and job summary); default: text
  --out FILE              write the report to FILE instead of stdout
  --base-path PATH        a path prefix to strip before matching routes (repeatable)
  --warnings-as-errors    treat warnings as violations
  --jobs N                check up to N files at once in worker threads (default 1; at most one a core)
  --coverage FILE         write what the traffic reached of the contract to FILE (JSON), and end a
                          text report with its summary
  --min-coverage KIND=PCT fail (exit 1) when KIND's coverage is below PCT % (repeatable); kinds:
                          check: operations statuses parameters security request-members
                          response-members branches enums gaps; webhooks: events members branches
                          enums gaps
  -h, --help              show this help

Exit status: 0 everything conforms, 1 something does not, 2 unusable input.`;

/** The help of each checking verb. */
export const CHECK_USAGE = {
  check: `Usage: idv-conformance check FILE… [options]

Check API exchanges (HAR 1.2, NDJSON, or Kong, Nginx or Apache JSON access logs, detected; - for
standard input) against the OpenAPI contract.

${CHECK_OPTIONS}`,
  webhooks: `Usage: idv-conformance webhooks FILE… [options]

Check received webhook deliveries (HAR 1.2 or NDJSON; - for standard input) against the AsyncAPI
contract (--spec: another AsyncAPI document).

${CHECK_OPTIONS}`,
};

/** The flags of `idv-conformance check` and `webhooks`, by long name. */
export const CHECK_FLAGS = {
  spec: { type: "string" },
  ...REPORT_FLAGS,
  "base-path": { type: "string", multiple: true },
  "warnings-as-errors": { type: "boolean" },
  jobs: { type: "string" },
  coverage: { type: "string" },
  "min-coverage": { type: "string", multiple: true },
} as const;

function parse(command: "check" | "webhooks", argv: string[]) {
  const { help, values, positionals } = parseFlags(argv, CHECK_FLAGS);
  if (help) return { help: true as const };
  const format = reportFormat(values.format);
  const files = positionals.slice(1);
  if (files.length === 0) throw new UsageError(`${command} needs at least one FILE`);
  return {
    help: false as const,
    command,
    files,
    format,
    spec: values.spec,
    out: values.out,
    basePaths: values["base-path"] ?? [],
    warningsAsErrors: values["warnings-as-errors"] ?? false,
    jobs: values.jobs === undefined ? 1 : wholeNumber(values.jobs, "--jobs", 1),
    coverage: values.coverage,
    thresholds: parseThresholds(values["min-coverage"] ?? [], command),
  };
}

/**
 * Every result of every file: in worker threads with --jobs (at most one a core, said once on stderr
 * when fewer than asked), else here, one file after another.
 */
async function openResults(
  args: {
    command: "check" | "webhooks";
    files: string[];
    spec?: string;
    basePaths: string[];
    jobs: number;
  },
  io: CliIo,
  coverage?: SeenLocations,
  onContract?: (document: unknown) => void,
): Promise<AsyncIterable<EntryResult>> {
  const { availableParallelism } = await import("node:os");
  const cores = availableParallelism();
  if (args.jobs > cores)
    io.stderr.write(`idv-conformance: --jobs ${args.jobs} is more than the ${cores} cores; using ${cores}\n`);
  const jobs = Math.min(args.jobs, cores);
  if (jobs > 1 && args.files.length > 1) {
    const { checkInWorkers } = await import("./worker-pool.js");
    // A file whose worker stopped is a violation in the report, and one line here.
    const stopped = (file: string, reason: string) =>
      io.stderr.write(`idv-conformance: ${shownText(`${file}: not checked to its end: ${reason}`)}\n`);
    return checkInWorkers(
      jobs,
      args.files,
      { command: args.command, spec: args.spec, basePaths: args.basePaths, coverage: !!coverage },
      undefined,
      stopped,
      { onCoverage: (seen) => coverage?.merge(seen) },
    );
  }
  const source = await openSource(args, { coverage, onContract });
  return (async function* () {
    for (const file of args.files) yield* source(file);
  })();
}

/** How long a run goes quietly before it shows progress: short runs print only their report. */
const PROGRESS_AFTER_MS = 2_000;

/** `check` and `webhooks`: read traffic, check it, write the report. */
export async function runChecks(argv: string[], io: CliIo): Promise<number> {
  const command = argv[0] === "webhooks" ? "webhooks" : "check";
  const args = await readArgs(CHECK_USAGE[command], io, () => parse(command, argv));
  if (typeof args === "number") return args;
  // Coverage is gathered only when asked for: a plain check does not pay for it.
  const coverage = await startCoverage(args);
  // The --spec document as the checker read it: the SARIF report points into it without reading it again.
  let document: unknown;
  const results = await openResults(args, io, coverage?.seen, (read) => {
    document = read;
    coverage?.useContract(read);
  });
  // The GitHub job summary shows the coverage too: made once the entries are checked.
  let coverageKinds: CoverageSummary | undefined;
  const reporter = await createReporter(
    args.format,
    `idv-conformance ${args.command}`,
    args.command === "check" ? "(no matching operation)" : "(no matching message)",
    { contract: contractFile(args.command, args.spec), document, coverage: () => coverageKinds },
  );
  const bar = progress(io, PROGRESS_AFTER_MS);
  let summary: Summary;
  try {
    summary = await runAll(results, reporter, {
      warningsAsErrors: args.warningsAsErrors,
      onProgress: (n) => bar.show(`checked ${n.toLocaleString("en-US")} entries…`),
    });
  } catch (error) {
    // Nothing of the report is written when the input fails: a partial report would read as a verdict.
    bar.clear();
    await reporter.abort();
    throw error;
  }
  bar.clear();
  if (coverage && args.format === "github")
    coverageKinds = (await import("../coverage/coverage-run.js")).kindTotals(await coverage.report());
  const out: Writable = args.out ? await openOut(args.out) : io.stdout;
  await reporter.finish(summary, out);
  const covered = coverage ? await coverage.finish(args.format === "text" ? out : undefined, io) : true;
  if (args.out) await closeOut(out);
  return summary.failed > 0 || !covered ? 1 : 0;
}
