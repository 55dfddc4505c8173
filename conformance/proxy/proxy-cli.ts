// `idv-conformance proxy --upstream URL [--record FILE.har] [--format F --out FILE] [-- CMD…]`: a
// validating proxy in front of the service. Each violation is printed as its exchange completes
// (template, check, pointer and message: never a recorded value). It stops on SIGINT or SIGTERM,
// or, given CMD, when CMD (run with IDV_BASE_URL pointing at the proxy) ends; then it closes the
// recording, writes the report and a summary, and exits 0 when every exchange conformed (and CMD
// succeeded), 1 when one did not (or CMD failed), 2 on unusable input.
import { parsePort } from "../../src/server/index.js";
import type { EntryResult, Summary } from "../findings/findings.js";
import { InputError } from "../traffic/input-error.js";
import { bundledContract, readContract } from "../checks/load-contract.js";
import { openConformanceChecker } from "../run/open-checker.js";
import { promoteWarnings } from "../run/run.js";
import {
  asUsage,
  type CliIo,
  closeOut,
  openOut,
  parseFlags,
  readArgs,
  REPORT_FLAGS,
  reportFormat,
  UsageError,
} from "../run/command.js";
import { contractFile } from "../findings/contract-location.js";
import { createReporter, findingLine, type Reporter } from "../findings/reporters.js";
import { DEFAULT_CAPTURE_BYTES, startProxy } from "./proxy.js";
import { signingCredentials, signingHandler } from "./sign-upstream.js";
import { HarRecorder } from "./har.js";
import { commandFailure, type CommandEnd, runCommand } from "./wrapped-command.js";
import { takeUrl, type UrlFlag } from "../run/url-intake.js";

/** `--upstream`: the service's base URL, taken as every URL flag is (run/url-intake.ts). */
const UPSTREAM: UrlFlag = {
  name: "--upstream",
  query: "refuse",
  queryComesFrom: "the client",
  credentialsGo: "the proxy passes on the credentials each client sends",
  fragment: "refuse",
};

/** The help of `idv-conformance proxy`. */
export const PROXY_USAGE = `Usage: idv-conformance proxy --upstream URL [options] [-- CMD…]

Forward requests to URL and check each exchange as it completes. Without CMD it runs until SIGINT
(Ctrl+C) or SIGTERM; with CMD it runs CMD with IDV_BASE_URL set to the proxy's URL and stops when
CMD ends (CMD's own output goes to stderr). Then it writes its report.

Options:
  --upstream URL          the service's base URL (no credentials, query or fragment)
  --port N                port to listen on (default 4011; 0: a free one)
  --host H                address to listen on (default 127.0.0.1)
  --record FILE.har       record every exchange (credentials and personal data redacted)
  --sign                  add each operation's credentials (v2 key and secret, v4 date and
                          signature) from IDV_API_KEY and IDV_API_SECRET to what it forwards
  --spec FILE             the contract (default: the bundled one)
  --base-path PATH        a path prefix to strip before matching routes (repeatable)
  --warnings-as-errors    treat warnings as violations
  --format text|json|junit|sarif|github
                          the report (default: text, each violation as it comes, then a summary)
  --out FILE              write the report to FILE instead of stdout (violations then go to stderr)
  -h, --help              show this help

Exit status: 0 every exchange conformed (and CMD succeeded), 1 one did not (or CMD failed),
2 unusable input.`;

/** Where the proxy writes (as every verb does), and how it waits for the signal to stop (a test passes its own). */
export interface ProxyIo extends CliIo {
  /** Resolves when the proxy should stop; by default on SIGINT or SIGTERM. */
  stopped?: Promise<void>;
  /** Called once listening, with the proxy's URL. */
  onListening?: (url: string) => void;
}

/** The verdict of one exchange as printed live: a line per violation, under the operation. */
export function resultLines(result: EntryResult): string {
  const head = `✗ ${result.method} ${result.path}${result.operationId ? ` (${result.operationId})` : ""}`;
  return `${head}\n${result.violations.map((f) => `  ${findingLine(f)}`).join("\n")}\n`;
}

/** The flags of `idv-conformance proxy`, by long name. */
export const FLAGS = {
  upstream: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  record: { type: "string" },
  sign: { type: "boolean" },
  spec: { type: "string" },
  "base-path": { type: "string", multiple: true },
  "warnings-as-errors": { type: "boolean" },
  ...REPORT_FLAGS,
} as const;

function parse(argv: string[]) {
  const { help, values, positionals, rest } = parseFlags(argv, FLAGS, { command: true });
  if (help) return { help: true as const };
  const format = reportFormat(values.format);
  if (positionals.length > 1) throw new UsageError("proxy takes no FILE; a command to run goes after --");
  if (rest !== undefined && rest.length === 0) throw new UsageError("-- must be followed by a command");
  if (!values.upstream) throw new UsageError("proxy needs --upstream URL (the service's base URL)");
  const upstream = takeUrl(values.upstream, UPSTREAM);
  const port = asUsage(() => parsePort(values.port, 4011, "--port"));
  return {
    help: false as const,
    upstream,
    port,
    host: values.host ?? "127.0.0.1",
    record: values.record,
    sign: values.sign ? signingCredentials(process.env) : undefined,
    spec: values.spec,
    basePaths: values["base-path"] ?? [],
    warningsAsErrors: values["warnings-as-errors"] ?? false,
    format,
    out: values.out,
    command: rest,
  };
}

/**
 * Resolves on the first SIGINT or SIGTERM, so the run can close and report; a second signal while it
 * does ends the process at once (exit 2: the report was not written). `dispose` removes the handlers.
 */
function untilSignal(): { stopped: Promise<void>; dispose: () => void } {
  const again = (): never => process.exit(2);
  let first = (): void => undefined;
  const stopped = new Promise<void>((resolve) => {
    first = (): void => {
      process.off("SIGINT", first);
      process.off("SIGTERM", first);
      process.once("SIGINT", again);
      process.once("SIGTERM", again);
      resolve();
    };
    process.on("SIGINT", first);
    process.on("SIGTERM", first);
  });
  const dispose = (): void => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.off(signal, first);
      process.off(signal, again);
    }
  };
  return { stopped, dispose };
}

/** The summary line of a run. */
const summaryLine = (summary: Summary, unchecked: number): string =>
  `${summary.entries} exchanges checked: ${summary.passed} conform, ${summary.failed} do not, ${summary.warnings} warnings` +
  `${unchecked > 0 ? `, ${unchecked} not checked` : ""}\n`;

/** Run the proxy until stopped; the exit status of the whole run. */
export async function runProxy(argv: string[], io: ProxyIo): Promise<number> {
  const args = await readArgs(PROXY_USAGE, io, () => parse(argv));
  if (typeof args === "number") return args;
  const spec = args.spec ? await readContract(args.spec) : bundledContract();
  const checker = await openConformanceChecker({ spec, basePaths: args.basePaths });
  // Plain text to stdout is the live view; any other report is written whole at the end, and the
  // live lines go to stderr beside it.
  const live = args.format === "text" && !args.out;
  const liveOut = live ? io.stdout : io.stderr;
  const out = args.out ? await openOut(args.out) : io.stdout;
  let reporter: Reporter | undefined;
  let recorder: HarRecorder | undefined;
  let signals: ReturnType<typeof untilSignal> | undefined;
  try {
    reporter = live
      ? undefined
      : await createReporter(args.format, "idv-conformance proxy", undefined, {
          contract: contractFile("check", args.spec),
        });
    if (args.record) {
      const file = args.record;
      recorder = await HarRecorder.open(file, spec, { checker, basePaths: args.basePaths }).catch(() => {
        throw new InputError(file, "cannot be written");
      });
    }
    const summary: Summary = { entries: 0, passed: 0, failed: 0, warnings: 0 };
    let unchecked = 0;
    let reported: Promise<void> = Promise.resolve();
    const proxy = await startProxy({
      upstream: args.upstream,
      checker,
      port: args.port,
      host: args.host,
      onResult: (raw) => {
        const result = args.warningsAsErrors ? promoteWarnings(raw) : raw;
        summary.entries++;
        summary.warnings += result.warnings.length;
        if (result.ok) summary.passed++;
        else {
          summary.failed++;
          liveOut.write(resultLines(result));
        }
        if (reporter) reported = reported.then(() => reporter?.add(result));
      },
      onUnchecked: (method, why) => {
        unchecked++;
        io.stderr.write(
          `idv-conformance proxy: a ${method} exchange was forwarded but not checked: ${why}\n`,
        );
      },
      onExchange: recorder ? (exchange) => recorder?.add(exchange) : undefined,
      ready: recorder ? () => recorder!.ready() : undefined,
      sign: args.sign && signingHandler(args.sign, { maxBytes: DEFAULT_CAPTURE_BYTES }),
    }).catch((error: NodeJS.ErrnoException) => {
      throw new InputError(
        `${args.host}:${args.port}`,
        error.code === "EADDRINUSE" ? "is in use; pick another --port" : "cannot be listened on",
      );
    });
    // Listened for before saying where it listens: a signal sent on reading that line finds its handler.
    signals = io.stopped ? undefined : untilSignal();
    const stopped = io.stopped ?? signals!.stopped;
    const where = `${args.upstream.origin}${args.upstream.pathname}`;
    io.stderr.write(
      `idv-conformance proxy: ${proxy.url} → ${where}; ${args.command ? "stops when the command ends" : "Ctrl+C stops and reports"}\n`,
    );
    io.onListening?.(proxy.url);
    const ended = args.command ? await untilCommandEnds(args.command, proxy.url, stopped, io) : undefined;
    if (!ended) await stopped;
    await proxy.close();
    await recorder?.close();
    await reported;
    (live ? io.stdout : io.stderr).write(summaryLine(summary, unchecked));
    if (reporter) await reporter.finish(summary, out);
    reporter = undefined;
    const failure = ended && commandFailure(ended);
    if (failure) io.stderr.write(`idv-conformance proxy: the command ${failure}\n`);
    if (ended && "failed" in ended) return 2;
    return summary.failed > 0 || failure ? 1 : 0;
  } finally {
    signals?.dispose();
    await reporter?.abort();
    if (args.out) await closeOut(out);
  }
}

/** Run the command and resolve when it ends; a stop asked for first (a signal) stops it, then waits. */
async function untilCommandEnds(
  command: string[],
  url: string,
  stopped: Promise<void>,
  io: ProxyIo,
): Promise<CommandEnd> {
  const running = runCommand(command, { IDV_BASE_URL: url }, io.stderr);
  const first = await Promise.race([running.ended, stopped.then(() => undefined)]);
  if (first) return first;
  running.stop();
  return running.ended;
}
