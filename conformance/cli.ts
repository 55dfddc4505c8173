#!/usr/bin/env node
// idv-conformance: check recorded traffic and webhook deliveries against the contract.
// Exit 0 when everything conforms, 1 when something does not, 2 when the input cannot be used.
import { createWriteStream, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import type { EntryResult, Summary } from "./findings/findings.js";
import { InputError } from "./traffic/input-error.js";
import { openSource } from "./run/open-source.js";
import { createReporter, type ReportFormat } from "./findings/reporters.js";
import { runAll } from "./run/run.js";
import { UsageError } from "./run/command.js";
import { enableCompileCache } from "./run/compile-cache.js";

const USAGE = `Usage:
  idv-conformance check FILE…      check API exchanges (HAR 1.2 or NDJSON) against the OpenAPI contract
  idv-conformance webhooks FILE…   check received webhook deliveries (HAR or NDJSON) against the AsyncAPI contract
  idv-conformance proxy --upstream URL [--port N] [--record FILE.har]
                                   forward to URL and check each exchange as it completes (stop: Ctrl+C)
  idv-conformance probe --base-url URL [--phases …]
                                   send the contract's examples, broken requests, wrong credentials and
                                   linked flows to a deployment and check every answer (see probe --help)
  idv-conformance receiver URL [--auth …] [--workflow-url URL]
                                   send a webhook receiver the deliveries of the contract and judge its answers

Options:
  --spec FILE             the contract (default: the bundled one; OpenAPI for check, AsyncAPI for webhooks)
  --format text|json|junit   report format (default: text)
  --out FILE              write the report to FILE instead of stdout
  --base-path PATH        a path prefix to strip before matching routes (repeatable)
  --warnings-as-errors    treat warnings as violations
  --jobs N                check up to N files at once in worker threads (default 1; at most one a core)
  -h, --help              show this help

Exit status: 0 everything conforms, 1 something does not, 2 unusable input.`;

/** Where the CLI writes: the process's streams, or a test's. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      spec: { type: "string" },
      format: { type: "string", default: "text" },
      out: { type: "string" },
      "base-path": { type: "string", multiple: true },
      "warnings-as-errors": { type: "boolean", default: false },
      jobs: { type: "string", default: "1" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, ...files] = positionals;
  if (values.help) return { help: true as const };
  if (command !== "check" && command !== "webhooks")
    throw new UsageError(command ? `unknown command ${command}` : "no command given");
  if (files.length === 0) throw new UsageError(`${command} needs at least one FILE`);
  const format = values.format;
  if (format !== "text" && format !== "json" && format !== "junit")
    throw new UsageError(`unknown format ${format}`);
  // Digits only: Number() would also take "0x2", " 2", "2.0" and "1e1".
  const jobs = /^[0-9]+$/.test(values.jobs) ? Number(values.jobs) : 0;
  if (jobs < 1) throw new UsageError(`--jobs must be a whole number ≥ 1, got ${values.jobs}`);
  return {
    help: false as const,
    command: command as "check" | "webhooks",
    files,
    format: format as ReportFormat,
    spec: values.spec,
    out: values.out,
    basePaths: values["base-path"] ?? [],
    warningsAsErrors: values["warnings-as-errors"],
    jobs,
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
      { command: args.command, spec: args.spec, basePaths: args.basePaths },
      undefined,
      stopped,
    );
  }
  const source = await openSource(args);
  return (async function* () {
    for (const file of args.files) yield* source(file);
  })();
}

/** How long a run goes quietly before it shows progress: short runs print only their report. */
const PROGRESS_AFTER_MS = 2_000;

/**
 * Progress on stderr, only for a person watching a terminal (never in CI logs, never into a pipe), and
 * only once the run has taken a couple of seconds.
 */
function progress(io: CliIo): { tick: (n: number) => void; clear: () => void } {
  if (!io.stdout.isTTY || !io.stderr.isTTY || process.env.CI)
    return { tick: () => undefined, clear: () => undefined };
  const start = Date.now();
  let last = 0;
  return {
    tick: (n) => {
      const now = Date.now();
      if (now - start < PROGRESS_AFTER_MS || now - last < 200) return;
      last = now;
      io.stderr.write(`\rchecked ${n.toLocaleString("en-US")} entries…`);
    },
    clear: () => {
      if (last > 0) io.stderr.write("\r\x1b[K");
    },
  };
}

/** The report file, opened before anything is written to it, so that a bad path is an input error. */
function openOut(file: string): Promise<Writable> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(file);
    stream.once("open", () => resolve(stream));
    stream.once("error", () => reject(new InputError(file, "cannot be written")));
  });
}

/** `check` and `webhooks`: read traffic, check it, write the report. */
async function runChecks(argv: string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    io.stderr.write(
      `idv-conformance: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`,
    );
    return 2;
  }
  if (args.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const results = await openResults(args, io);
  const reporter = await createReporter(
    args.format,
    `idv-conformance ${args.command}`,
    args.command === "check" ? "(no matching operation)" : "(no matching message)",
  );
  const bar = progress(io);
  let summary: Summary;
  try {
    summary = await runAll(results, reporter, {
      warningsAsErrors: args.warningsAsErrors,
      onProgress: bar.tick,
    });
  } catch (error) {
    // Nothing of the report is written when the input fails: a partial report would read as a verdict.
    bar.clear();
    await reporter.abort();
    throw error;
  }
  bar.clear();
  const out: Writable = args.out ? await openOut(args.out) : io.stdout;
  await reporter.finish(summary, out);
  if (args.out)
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return summary.failed > 0 ? 1 : 0;
}

/** The subcommands, by name: a new one is one more entry. */
const COMMANDS = new Map<string, (argv: string[], io: CliIo) => Promise<number>>([
  ["check", runChecks],
  ["webhooks", runChecks],
  ["proxy", async (argv, io) => (await import("./proxy/proxy-cli.js")).runProxy(argv, io)],
  ["probe", async (argv, io) => (await import("./probe/probe-cli.js")).runProbe(argv, io)],
  [
    "receiver",
    async (argv, io) => (await import("./receiver-check/receiver-cli.js")).runReceiverCheck(argv, io),
  ],
]);

/**
 * Run the CLI and give its exit status. Never throws and never prints a stack trace (it could quote
 * recorded data): unusable input is one line on stderr and status 2.
 */
export async function main(
  argv: string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const command = argv.find((a) => !a.startsWith("-"));
  const run = (command !== undefined && COMMANDS.get(command)) || runChecks;
  try {
    return await run(argv, io);
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
