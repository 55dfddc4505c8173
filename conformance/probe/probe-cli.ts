// `idv-conformance probe --base-url URL`: exercise a deployment with requests made from the contract.
import { randomInt } from "node:crypto";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import type { CliIo } from "../cli.js";
import { InputError } from "../traffic/input-error.js";
import { bundledContract } from "../checks/load-contract.js";
import { HarRecorder } from "../proxy/har.js";
import type { ReportFormat } from "../findings/reporters.js";
import { closeOut, openOut, parseCommand, UsageError, wholeNumber } from "../run/command.js";
import { takeUrl, URL_FLAGS } from "../run/url-intake.js";
import { type ActiveReport, latencyRows, summarize, writeActiveReport } from "./active-report.js";
import { closeIdleSockets } from "./http-send.js";
import { PHASES, type Phase, probeMarker, runProbe } from "./run-probe.js";
import { isLoopback } from "./safety.js";

/** The help of `idv-conformance probe`. */
export const PROBE_USAGE = `Usage: idv-conformance probe --base-url URL [options]

Send a deployment every request example of the contract, requests that break one rule each, wrong
credentials and the document's flows (through the contract's links); check every answer.

Options:
  --base-url URL          the deployment (a loopback host unless --allow-host names it)
  --key K --secret S      the API credentials (better: IDV_API_KEY and IDV_SECRET in the environment)
  --phases LIST           examples,negative,auth,stateful (default: all four)
  --operations ID,…       only these operationIds
  --read-only             send only GET requests (nothing is created, nothing is archived)
  --allow-host HOST       allow a host that is not loopback (repeatable): writes cost money and send texts
  --record FILE.har       record every exchange (credentials and personal data redacted)
  --format text|json|junit   report format (default: text)
  --out FILE              write the report to FILE instead of stdout
  --seed N                the seed of the choices the probe makes (default: random, printed)
  --max-requests N        send at most N requests (default 2000)
  --concurrency N         requests in flight at once (default 4)
  --timeout MS            a request not answered within MS fails (default 30000)
  -h, --help              show this help

Exit status: 0 every check passed, 1 a check failed, 2 unusable input.`;

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "base-url": { type: "string" },
      key: { type: "string" },
      secret: { type: "string" },
      phases: { type: "string" },
      operations: { type: "string" },
      "read-only": { type: "boolean", default: false },
      "allow-host": { type: "string", multiple: true },
      record: { type: "string" },
      format: { type: "string", default: "text" },
      out: { type: "string" },
      seed: { type: "string" },
      "max-requests": { type: "string", default: "2000" },
      concurrency: { type: "string", default: "4" },
      timeout: { type: "string", default: "30000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return { help: true as const };
  if (positionals.length > 1)
    throw new UsageError("probe takes no FILE; give the deployment with --base-url");
  if (!values["base-url"]) throw new UsageError("probe needs --base-url URL");
  const baseUrl = takeUrl(values["base-url"], URL_FLAGS.baseUrl);
  // An IPv6 host is compared without its brackets, however it was written.
  const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const allowed = new Set((values["allow-host"] ?? []).map(bare));
  if (!isLoopback(baseUrl) && !allowed.has(bare(baseUrl.hostname)))
    throw new UsageError(
      "--base-url is not a loopback host: the probe creates records, which cost money and send text messages; name the host with --allow-host to probe it anyway (or add --read-only)",
    );
  const format = values.format;
  if (format !== "text" && format !== "json" && format !== "junit")
    throw new UsageError(`unknown format ${format}`);
  const phases = (values.phases ?? PHASES.join(",")).split(",").map((p) => p.trim());
  for (const p of phases)
    if (!(PHASES as readonly string[]).includes(p))
      throw new UsageError(`unknown phase ${JSON.stringify(p)} (phases: ${PHASES.join(", ")})`);
  const apiKey = values.key ?? env.IDV_API_KEY;
  const secret = values.secret ?? env.IDV_SECRET;
  if (!apiKey || !secret)
    throw new UsageError(
      "probe needs credentials: IDV_API_KEY and IDV_SECRET in the environment, or --key and --secret",
    );
  return {
    help: false as const,
    baseUrl,
    credentials: { apiKey, secret },
    phases: phases as Phase[],
    operations: values.operations
      ? new Set(
          values.operations
            .split(",")
            .map((o) => o.trim())
            .filter(Boolean),
        )
      : undefined,
    readOnly: values["read-only"],
    record: values.record,
    format: format as ReportFormat,
    out: values.out,
    seed: values.seed === undefined ? randomInt(1, 2 ** 31 - 1) : wholeNumber(values.seed, "--seed", 0),
    maxRequests: wholeNumber(values["max-requests"], "--max-requests", 1),
    concurrency: Math.min(64, wholeNumber(values.concurrency, "--concurrency", 1)),
    timeoutMs: wholeNumber(values.timeout, "--timeout", 1),
  };
}

/** Run `idv-conformance probe`; resolves with the exit status. */
export async function runProbeCommand(
  argv: string[],
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const args = parseCommand(() => parse(argv, env), PROBE_USAGE, io);
  if (typeof args === "number") return args;
  const document = bundledContract();
  const out: Writable = args.out ? await openOut(args.out) : io.stdout;
  let recorder: HarRecorder | undefined;
  if (args.record) {
    const file = args.record;
    recorder = await HarRecorder.open(file, document).catch(() => {
      throw new InputError(file, "cannot be written");
    });
  }
  try {
    const { results, notes } = await runProbe({
      baseUrl: args.baseUrl,
      credentials: args.credentials,
      phases: args.phases,
      ...(args.operations ? { operations: args.operations } : {}),
      seed: args.seed,
      maxRequests: args.maxRequests,
      concurrency: args.concurrency,
      readOnly: args.readOnly,
      timeoutMs: args.timeoutMs,
      document,
      ...(recorder ? { recorder } : {}),
    });
    const report: ActiveReport = {
      title: "idv-conformance probe",
      target: `${args.baseUrl.origin}${args.baseUrl.pathname}`,
      results,
      latency: latencyRows(results),
      notes: [
        `seed ${args.seed} (run again with --seed ${args.seed}); records created carry the reference ${probeMarker(args.seed)}`,
        ...notes,
      ],
    };
    await writeActiveReport(args.format, report, out);
    return summarize(results).failed > 0 ? 1 : 0;
  } finally {
    closeIdleSockets();
    await recorder?.close().catch(() => undefined);
    if (args.out) await closeOut(out);
  }
}

export { runProbeCommand as runProbe };
