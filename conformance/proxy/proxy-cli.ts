// `idv-conformance proxy --upstream URL [--port N] [--host H] [--record FILE.har]`: a validating
// proxy in front of the service. Each violation is printed as its exchange completes (template,
// check, pointer and message: never a recorded value); SIGINT or SIGTERM stops it, closes the
// recording and exits 0 when every exchange conformed, 1 when one did not, 2 on unusable input.
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { parsePort } from "../../src/server/index.js";
import type { EntryResult, Summary } from "../findings/findings.js";
import { InputError } from "../traffic/input-error.js";
import { bundledContract, readContract } from "../checks/load-contract.js";
import { openConformanceChecker } from "../run/open-checker.js";
import { startProxy } from "./proxy.js";
import { HarRecorder } from "./har.js";
import { findingLine } from "../findings/reporters.js";

export const PROXY_USAGE = `  idv-conformance proxy --upstream URL [--port N] [--host H] [--record FILE.har]
                                   forward requests to URL, check each exchange as it completes`;

/** Where the proxy writes, and how it waits for the signal to stop (a test passes its own). */
export interface ProxyIo {
  stdout: Writable;
  stderr: Writable;
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

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      upstream: { type: "string" },
      port: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      record: { type: "string" },
      spec: { type: "string" },
      "base-path": { type: "string", multiple: true },
      "warnings-as-errors": { type: "boolean", default: false },
    },
  });
  if (positionals.length > 1) throw new InputError("proxy", "takes no FILE arguments");
  if (!values.upstream) throw new InputError("proxy", "needs --upstream URL (the service's base URL)");
  let upstream: URL;
  try {
    upstream = new URL(values.upstream);
  } catch {
    throw new InputError("--upstream", "is not a URL");
  }
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:")
    throw new InputError("--upstream", "must be an http or https URL");
  if (upstream.username || upstream.password || upstream.search || upstream.hash)
    throw new InputError("--upstream", "must be a base URL without credentials, query or fragment");
  let port: number;
  try {
    port = parsePort(values.port, 4011, "--port");
  } catch (error) {
    throw new InputError("--port", (error as Error).message.replace(/^--port /, ""));
  }
  return { ...values, upstream, port };
}

/**
 * Resolves on the first SIGINT or SIGTERM, so the run can close and report; a second signal while it
 * does ends the process at once (exit 2: the report was not written).
 */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const first = (): void => {
      process.off("SIGINT", first);
      process.off("SIGTERM", first);
      const again = (): never => process.exit(2);
      process.once("SIGINT", again);
      process.once("SIGTERM", again);
      resolve();
    };
    process.on("SIGINT", first);
    process.on("SIGTERM", first);
  });
}

/** Run the proxy until stopped; the exit status of the whole run. */
export async function runProxy(argv: string[], io: ProxyIo): Promise<number> {
  const args = parse(argv.filter((a) => a !== "proxy"));
  const spec = args.spec ? await readContract(args.spec) : bundledContract();
  const checker = await openConformanceChecker({ spec, basePaths: args["base-path"] ?? [] });
  const recorder = args.record
    ? await HarRecorder.open(args.record, spec, { checker, basePaths: args["base-path"] ?? [] }).catch(() => {
        throw new InputError(args.record as string, "cannot be written");
      })
    : undefined;
  const summary: Summary = { entries: 0, passed: 0, failed: 0, warnings: 0 };
  let unchecked = 0;
  const proxy = await startProxy({
    upstream: args.upstream,
    checker,
    port: args.port,
    host: args.host,
    onResult: (result) => {
      summary.entries++;
      summary.warnings += result.warnings.length;
      const ok = result.ok && !(args["warnings-as-errors"] && result.warnings.length > 0);
      if (ok) summary.passed++;
      else {
        summary.failed++;
        io.stdout.write(resultLines(result));
      }
    },
    onUnchecked: (method, why) => {
      unchecked++;
      io.stderr.write(`idv-conformance proxy: a ${method} exchange was forwarded but not checked: ${why}\n`);
    },
    onExchange: recorder ? (exchange) => recorder.add(exchange) : undefined,
    ready: recorder ? () => recorder.ready() : undefined,
  }).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(
      `${args.host}:${args.port}`,
      error.code === "EADDRINUSE" ? "is in use; pick another --port" : "cannot be listened on",
    );
  });
  // Listened for before saying where it listens: a signal sent on reading that line finds its handler.
  const stopped = io.stopped ?? untilSignal();
  io.stderr.write(
    `idv-conformance proxy: ${proxy.url} → ${args.upstream.origin}${args.upstream.pathname}; Ctrl+C stops and reports\n`,
  );
  io.onListening?.(proxy.url);
  await stopped;
  await proxy.close();
  await recorder?.close();
  io.stdout.write(
    `${summary.entries} exchanges checked: ${summary.passed} conform, ${summary.failed} do not, ${summary.warnings} warnings` +
      `${unchecked > 0 ? `, ${unchecked} not checked` : ""}\n`,
  );
  return summary.failed > 0 ? 1 : 0;
}
