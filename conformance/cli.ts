#!/usr/bin/env node
// idv-conformance VERB: check recorded traffic (check) and webhook deliveries (webhooks) against the
// contract; proxy, probe and receiver are loaded when named. Every verb reads its command line with
// the package's one parser (run/command.ts). Exit 0 when everything conforms, 1 when something does
// not, 2 when the input or the command line cannot be used.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Writable } from "node:stream";
import type { EntryResult, Summary } from "./findings/findings.js";
import { InputError } from "./traffic/input-error.js";
import { openSource } from "./run/open-source.js";
import { createReporter } from "./findings/reporters.js";
import { contractFile } from "./findings/contract-location.js";
import { runAll } from "./run/run.js";
import {
  type CliIo,
  closeOut,
  openOut,
  parseFlags,
  PROGRAM,
  progress,
  readArgs,
  REPORT_FLAGS,
  reportFormat,
  shownWord,
  UsageError,
  wholeNumber,
} from "./run/command.js";
import { enableCompileCache } from "./run/compile-cache.js";
import type { CoverageRun, CoverageRequest } from "./coverage/coverage-run.js";
import type { CoverageSummary } from "./findings/github.js";
import type { SeenLocations } from "./coverage/seen.js";
import { parseThresholds } from "./coverage/summary.js";

/** With --coverage or --min-coverage, the run's coverage (loaded only then). */
async function startCoverage(request: CoverageRequest): Promise<CoverageRun | undefined> {
  if (request.coverage === undefined && request.thresholds.size === 0) return undefined;
  return (await import("./coverage/coverage-run.js")).startCoverageRun(request);
}

export type { CliIo } from "./run/command.js";

/** The help of `idv-conformance` itself: its verbs. */
export const USAGE = `Usage: idv-conformance COMMAND [options]   (idv-conformance COMMAND --help: its options)

  check FILE…       check API exchanges (HAR 1.2, NDJSON, Kong or Nginx/Apache JSON logs) against the
                    OpenAPI contract
  webhooks FILE…    check received webhook deliveries (HAR or NDJSON) against the AsyncAPI contract
  proxy --upstream URL [-- CMD…]
                    forward to URL and check each exchange as it completes; with CMD, run CMD with
                    IDV_BASE_URL pointing at the proxy, and stop and report when it ends
  probe --base-url URL
                    send a deployment the contract's examples, broken requests, wrong credentials
                    and linked flows, and check every answer
  receiver URL      send a webhook receiver the deliveries of the contract and judge its answers
  coverage merge FILE…
                    merge the --coverage reports of several runs (CI shards) of one contract

Exit status: 0 everything conforms, 1 something does not, 2 unusable input.`;

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
    const { checkInWorkers } = await import("./run/worker-pool.js");
    // A file whose worker stopped is a violation in the report, and one line here.
    const stopped = (file: string, reason: string) =>
      io.stderr.write(`idv-conformance: ${file}: not checked to its end: ${reason}\n`);
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
async function runChecks(argv: string[], io: CliIo): Promise<number> {
  const command = argv[0] === "webhooks" ? "webhooks" : "check";
  const args = await readArgs(CHECK_USAGE[command], io, () => parse(command, argv));
  if (typeof args === "number") return args;
  // Coverage is gathered only when asked for: a plain check does not pay for it.
  const coverage = await startCoverage(args);
  // The --spec document as the checker read it: the SARIF report points into it without reading it again.
  let document: unknown;
  const results = await openResults(args, io, coverage?.seen, (read) => (document = read));
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
    coverageKinds = (await import("./coverage/coverage-run.js")).kindTotals(await coverage.report());
  const out: Writable = args.out ? await openOut(args.out) : io.stdout;
  await reporter.finish(summary, out);
  const covered = coverage ? await coverage.finish(args.format === "text" ? out : undefined, io) : true;
  if (args.out) await closeOut(out);
  return summary.failed > 0 || !covered ? 1 : 0;
}

/** The verbs, by name: a new one is one more entry. Each is given the whole command line, verb first. */
const VERBS = new Map<string, (argv: string[], io: CliIo) => Promise<number>>([
  ["check", runChecks],
  ["webhooks", runChecks],
  ["proxy", async (argv, io) => (await import("./proxy/proxy-cli.js")).runProxy(argv, io)],
  ["probe", async (argv, io) => (await import("./probe/probe-cli.js")).runProbe(argv, io)],
  [
    "receiver",
    async (argv, io) => (await import("./receiver-check/receiver-cli.js")).runReceiverCheck(argv, io),
  ],
  ["coverage", async (argv, io) => (await import("./coverage/coverage-cli.js")).runCoverage(argv, io)],
]);

/** The verb of a command line (its first word), or the exit status of a line that has none. */
function verbOf(argv: string[], io: CliIo): string | number {
  const first = argv[0];
  if (first !== undefined && VERBS.has(first)) return first;
  if (first === "--help" || first === "-h") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const problem =
    first === undefined
      ? "no command given"
      : first.startsWith("-")
        ? `the command comes first: idv-conformance COMMAND ${shownWord(first.split("=")[0] ?? "")}`
        : `unknown command ${shownWord(first)}`;
  io.stderr.write(`${PROGRAM}: ${problem}\n\n${USAGE}\n`);
  return 2;
}

/**
 * Run the CLI and give its exit status. Never throws and never prints a stack trace (it could quote
 * recorded data): unusable input is one line on stderr and status 2.
 */
export async function main(
  argv: string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const verb = verbOf(argv, io);
  if (typeof verb === "number") return verb;
  try {
    return await VERBS.get(verb)!(argv, io);
  } catch (error) {
    if (error instanceof InputError) {
      io.stderr.write(`idv-conformance: ${error.message}\n`);
    } else {
      // IDV_CONFORMANCE_DEBUG=1 shows the error to a developer.
      const name = error instanceof Error ? error.name : typeof error;
      io.stderr.write(`idv-conformance: unexpected ${name}; run with IDV_CONFORMANCE_DEBUG=1 for details\n`);
      if (process.env.IDV_CONFORMANCE_DEBUG === "1") console.error(error);
    }
    return 2;
  }
}

/** Whether this module is the program being run (not imported, e.g. by a test calling main). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // Before the checker's modules load (they are imported when a command needs them): a later start
  // reuses their compiled code.
  enableCompileCache();
  // A reader that stops early (`| head`) ends the run quietly; the verdict was not all written, so not 0.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 2);
  });
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
