// `idv-conformance probe --base-url URL`: exercise a deployment with requests made from the contract.
import { randomInt } from "node:crypto";
import type { Writable } from "node:stream";
import { InputError } from "../traffic/input-error.js";
import { bundledContract } from "../checks/load-contract.js";
import { HarRecorder } from "../proxy/har.js";
import {
  type CliIo,
  closeOut,
  openOut,
  parseFlags,
  progress,
  readArgs,
  REPORT_FLAGS,
  ACTIVE_FORMATS,
  reportFormat,
  UsageError,
  wholeNumber,
} from "../run/command.js";
import { takeUrl, URL_FLAGS } from "../run/url-intake.js";
import { type ActiveReport, latencyRows, summarize, writeActiveReport } from "./active-report.js";
import { closeIdleSockets } from "./http-send.js";
import { preflight } from "./preflight.js";
import { DEFAULT_GENERATIVE_MS } from "./probe-case.js";
import { PHASES, type Phase, probeMarker, runProbe } from "./run-probe.js";
import { isLoopback } from "./safety.js";
import { openProbeChecker } from "./session.js";

/** The help of `idv-conformance probe`. */
export const PROBE_USAGE = `Usage: idv-conformance probe --base-url URL [options]

Send a deployment every request example of the contract, requests that break one rule each, wrong
credentials and the document's journeys (the Arazzo workflows of arazzo/, their awaited events
included), then requests drawn from the contract's rules and walks along its links, each failure
shrunk to a minimal request; check every answer and every event. It first
checks that the deployment answers and accepts the credentials (exit 2, before any case, when not).

Options:
  --base-url URL          the deployment (default IDV_BASE_URL; a loopback host unless --allow-host names it)
  --key K --secret S      the API credentials (better: IDV_API_KEY and IDV_API_SECRET in the environment)
  --phases LIST           examples,negative,auth,stateful,generative (default: all five;
                          the first four on a host that is not loopback)
  --operations ID,…       only these operationIds
  --read-only             send only GET requests (nothing is created, nothing is archived)
  --allow-host HOST       allow a host that is not loopback (repeatable): writes cost money and send texts
  --record FILE.har       record every exchange (credentials and personal data redacted)
  --format FORMAT         text (default), json, junit, sarif (SARIF 2.1.0, each failure on the
                          contract's source line) or github (Actions annotations and job summary)
  --out FILE              write the report to FILE instead of stdout
  --seed N                the seed of the choices the probe makes (default: random, printed)
  --max-requests N        send at most N requests (default 2000)
  --max-failures N        stop sending once N requests have failed
  --concurrency N         requests in flight at once (default 4)
  --timeout MS            a request not answered within MS fails (default 30000)
  --receiver-url URL      the public address the deployment sends its webhook events to, forwarded to
                          the probe's listener (without it, events are awaited only against the sandbox)
  --receiver-port N       the port of that listener (default: the port of --receiver-url)
  --event-timeout MS      an awaited event not received within MS fails (default 60000)
  --generative-time MS    the generative phase's time, spread over its operations (default 60000)
  -h, --help              show this help

Progress goes to stderr when it is a terminal. Exit status: 0 every check passed, 1 a check failed,
2 unusable input, an unreachable deployment or refused credentials.`;

/** The flags of `idv-conformance probe`, by long name. */
export const FLAGS = {
  "base-url": { type: "string" },
  key: { type: "string" },
  secret: { type: "string" },
  phases: { type: "string" },
  operations: { type: "string" },
  "read-only": { type: "boolean" },
  "allow-host": { type: "string", multiple: true },
  record: { type: "string" },
  ...REPORT_FLAGS,
  seed: { type: "string" },
  "max-requests": { type: "string" },
  "max-failures": { type: "string" },
  concurrency: { type: "string" },
  timeout: { type: "string" },
  "receiver-url": { type: "string" },
  "receiver-port": { type: "string" },
  "event-timeout": { type: "string" },
  "generative-time": { type: "string" },
} as const;

/** How errors name --receiver-url; its query, if any, is the deployment's business: kept, never shown. */
const RECEIVER_URL_FLAG = {
  name: "--receiver-url",
  query: "secret",
  credentialsGo: "the probe's listener takes no credentials",
} as const;

/** The receiver flags: the public URL, the local port (default: the URL's), the deadline. */
function receiverOf(values: { "receiver-url"?: string; "receiver-port"?: string; "event-timeout"?: string }) {
  const receiverUrl =
    values["receiver-url"] === undefined ? undefined : takeUrl(values["receiver-url"], RECEIVER_URL_FLAG);
  if (values["receiver-port"] !== undefined && !receiverUrl)
    throw new UsageError(
      "--receiver-port is the port of the listener --receiver-url is forwarded to: give both",
    );
  const defaultPort = receiverUrl
    ? receiverUrl.port || (receiverUrl.protocol === "https:" ? "443" : "80")
    : "0";
  const receiverPort = wholeNumber(values["receiver-port"] ?? defaultPort, "--receiver-port", 0);
  if (receiverPort > 65535) throw new UsageError("--receiver-port must be a port (0 to 65535)");
  return {
    ...(receiverUrl ? { receiverUrl, receiverPort } : {}),
    eventTimeoutMs: wholeNumber(values["event-timeout"] ?? "60000", "--event-timeout", 1),
  };
}

/** The secret's name in earlier drafts: still read, with a warning, when IDV_API_SECRET is not set. */
const DEPRECATED_SECRET = "IDV_SECRET";

/** The API credentials: the flags, else the environment; a usage error naming what is missing. */
function credentialsOf(key: string | undefined, secret: string | undefined, env: NodeJS.ProcessEnv) {
  const apiKey = key ?? env.IDV_API_KEY;
  const deprecated = secret === undefined && env.IDV_API_SECRET === undefined && !!env[DEPRECATED_SECRET];
  const apiSecret = secret ?? env.IDV_API_SECRET ?? env[DEPRECATED_SECRET];
  if (!apiKey || !apiSecret)
    throw new UsageError(
      "probe needs credentials: IDV_API_KEY and IDV_API_SECRET in the environment, or --key and --secret",
    );
  return { credentials: { apiKey, secret: apiSecret }, deprecated };
}

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { help, values, positionals } = parseFlags(argv, FLAGS);
  if (help) return { help: true as const };
  const format = reportFormat(values.format, ACTIVE_FORMATS);
  if (positionals.length > 1)
    throw new UsageError("probe takes no FILE; give the deployment with --base-url");
  const baseText = values["base-url"] ?? env.IDV_BASE_URL;
  if (!baseText) throw new UsageError("probe needs --base-url URL (or IDV_BASE_URL in the environment)");
  const baseUrl = takeUrl(
    baseText,
    values["base-url"] ? URL_FLAGS.baseUrl : { ...URL_FLAGS.baseUrl, name: "IDV_BASE_URL" },
  );
  // An IPv6 host is compared without its brackets, however it was written.
  const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const allowed = new Set((values["allow-host"] ?? []).map(bare));
  if (!isLoopback(baseUrl) && !allowed.has(bare(baseUrl.hostname)))
    throw new UsageError(
      "--base-url is not a loopback host: the probe creates records, which cost money and send text messages; name the host with --allow-host to probe it anyway (or add --read-only)",
    );
  // Away from this machine the generative phase runs only when named: it creates a record per draw.
  const byDefault = isLoopback(baseUrl) ? PHASES : PHASES.filter((p) => p !== "generative");
  const phases = (values.phases ?? byDefault.join(",")).split(",").map((p) => p.trim());
  for (const p of phases)
    if (!(PHASES as readonly string[]).includes(p))
      throw new UsageError(`unknown phase ${JSON.stringify(p)} (phases: ${PHASES.join(", ")})`);
  return {
    help: false as const,
    baseUrl,
    ...credentialsOf(values.key, values.secret, env),
    phases: phases as Phase[],
    phaseNotes:
      values.phases === undefined && byDefault.length < PHASES.length
        ? [
            "generative: not run: the host is not loopback, and the phase creates a record per draw (hundreds); name it in --phases to run it there",
          ]
        : [],
    operations: values.operations
      ? new Set(
          values.operations
            .split(",")
            .map((o) => o.trim())
            .filter(Boolean),
        )
      : undefined,
    readOnly: values["read-only"] ?? false,
    record: values.record,
    format,
    out: values.out,
    seed: values.seed === undefined ? randomInt(1, 2 ** 31 - 1) : wholeNumber(values.seed, "--seed", 0),
    maxRequests: wholeNumber(values["max-requests"] ?? "2000", "--max-requests", 1),
    maxFailures:
      values["max-failures"] === undefined
        ? undefined
        : wholeNumber(values["max-failures"], "--max-failures", 1),
    concurrency: Math.min(64, wholeNumber(values.concurrency ?? "4", "--concurrency", 1)),
    timeoutMs: wholeNumber(values.timeout ?? "30000", "--timeout", 1),
    generativeMs: wholeNumber(
      values["generative-time"] ?? String(DEFAULT_GENERATIVE_MS),
      "--generative-time",
      1,
    ),
    ...receiverOf(values),
  };
}

/** Run `idv-conformance probe`; resolves with the exit status. */
export async function runProbeCommand(
  argv: string[],
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const args = await readArgs(PROBE_USAGE, io, () => parse(argv, env));
  if (typeof args === "number") return args;
  if (args.deprecated)
    io.stderr.write(`idv-conformance probe: ${DEPRECATED_SECRET} is deprecated: name it IDV_API_SECRET\n`);
  const document = bundledContract();
  try {
    // Before anything is opened or recorded: an unreachable deployment or refused credentials is one line.
    const problem = await preflight({
      baseUrl: args.baseUrl,
      credentials: args.credentials,
      timeoutMs: args.timeoutMs,
      document,
    });
    if (problem) {
      io.stderr.write(`idv-conformance probe: ${problem}\n`);
      return 2;
    }
    const out: Writable = args.out ? await openOut(args.out) : io.stdout;
    try {
      return await probeAndReport(args, document, out, io);
    } finally {
      if (args.out) await closeOut(out);
    }
  } finally {
    closeIdleSockets();
  }
}

/** Run the phases, with progress on a terminal, and write the report; the exit status. */
async function probeAndReport(
  args: Exclude<ReturnType<typeof parse>, { help: true }>,
  document: ReturnType<typeof bundledContract>,
  out: Writable,
  io: CliIo,
): Promise<number> {
  // One checker judges the cases and the recording's entries alike: compiling the contract takes time.
  const checker = await openProbeChecker(document, args.baseUrl);
  let recorder: HarRecorder | undefined;
  if (args.record) {
    const file = args.record;
    recorder = await HarRecorder.open(file, document, { checker }).catch(() => {
      throw new InputError(file, "cannot be written");
    });
  }
  const bar = progress(io, 0);
  let sent = 0;
  let failed = 0;
  try {
    const { results, notes } = await runProbe({
      baseUrl: args.baseUrl,
      credentials: args.credentials,
      phases: args.phases,
      ...(args.operations ? { operations: args.operations } : {}),
      seed: args.seed,
      maxRequests: args.maxRequests,
      ...(args.maxFailures === undefined ? {} : { maxFailures: args.maxFailures }),
      concurrency: args.concurrency,
      readOnly: args.readOnly,
      timeoutMs: args.timeoutMs,
      generativeMs: args.generativeMs,
      ...(args.receiverUrl ? { receiverUrl: args.receiverUrl, receiverPort: args.receiverPort } : {}),
      eventTimeoutMs: args.eventTimeoutMs,
      document,
      checker,
      ...(recorder ? { recorder } : {}),
      onResult: (result) => {
        sent++;
        if (!result.ok) failed++;
        bar.show(`probe: ${result.phase}, ${sent} requests sent, ${failed} failed…`);
      },
    });
    bar.clear();
    const report: ActiveReport = {
      title: "idv-conformance probe",
      target: `${args.baseUrl.origin}${args.baseUrl.pathname}`,
      results,
      latency: latencyRows(results),
      notes: [
        `seed ${args.seed} (run again with --seed ${args.seed}); records created carry the reference ${probeMarker(args.seed)}`,
        ...args.phaseNotes,
        ...notes,
      ],
    };
    await writeActiveReport(args.format, report, out, { contracts: { openapi: document } });
    return summarize(results).failed > 0 ? 1 : 0;
  } finally {
    bar.clear();
    await recorder?.close().catch(() => undefined);
  }
}

export { runProbeCommand as runProbe };
