// `idv-conformance receiver URL`: send a webhook receiver the battery and report how it answered.
import type { Writable } from "node:stream";
import {
  asUsage,
  type CliIo,
  closeOut,
  openOut,
  parseFlags,
  readArgs,
  REPORT_FLAGS,
  ACTIVE_FORMATS,
  reportFormat,
  UsageError,
  wholeNumber,
} from "../run/command.js";
import { takeUrl, URL_FLAGS } from "../run/url-intake.js";
import { type ActiveReport, latencyRows, summarize, writeActiveReport } from "../probe/active-report.js";
import { closeIdleSockets } from "../probe/http-send.js";
import { DEFAULT_TIMEOUT_MS, runBattery, shownUrl } from "./battery.js";
import { parseReceiverAuth, type ReceiverAuth } from "./receiver-auth.js";

/** The help of `idv-conformance receiver`. */
export const RECEIVER_USAGE = `Usage: idv-conformance receiver URL [options]

Send a webhook receiver every example delivery of the AsyncAPI contract, the Test button's body,
duplicates, an unknown event type, undescribed members, missing and wrong credentials, malformed
JSON and a 10 MB body, and judge its answers.

Options:
  --auth bearer:TOKEN|basic:USER:PASS   the receiver's credentials (or IDV_RECEIVER_AUTH in the environment)
  --workflow-url URL      the workflow case Webhook URL (its deliveries carry no credentials)
  --timeout MS            a delivery not acknowledged within MS failed (default ${DEFAULT_TIMEOUT_MS})
  --format FORMAT         text (default), json, junit, sarif (SARIF 2.1.0, each failure on the
                          AsyncAPI message's source line) or github (Actions annotations and job summary)
  --out FILE              write the report to FILE instead of stdout
  -h, --help              show this help

Exit status: 0 every check passed, 1 a check failed, 2 unusable input.`;

/** The flags of `idv-conformance receiver`, by long name. */
export const FLAGS = {
  auth: { type: "string" },
  "workflow-url": { type: "string" },
  timeout: { type: "string" },
  ...REPORT_FLAGS,
} as const;

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const { help, values, positionals } = parseFlags(argv, FLAGS);
  if (help) return { help: true as const };
  const format = reportFormat(values.format, ACTIVE_FORMATS);
  const [, target, ...extra] = positionals;
  if (!target) throw new UsageError("receiver needs the receiver's URL");
  if (extra.length > 0) throw new UsageError("receiver takes one URL");
  const authText = values.auth ?? env.IDV_RECEIVER_AUTH;
  const auth: ReceiverAuth | undefined =
    authText === undefined ? undefined : asUsage(() => parseReceiverAuth(authText));
  return {
    help: false as const,
    url: takeUrl(target, URL_FLAGS.receiverUrl),
    workflowUrl:
      values["workflow-url"] === undefined
        ? undefined
        : takeUrl(values["workflow-url"], URL_FLAGS.workflowUrl),
    auth,
    timeoutMs: wholeNumber(values.timeout ?? String(DEFAULT_TIMEOUT_MS), "--timeout", 1),
    format,
    out: values.out,
  };
}

/** Run `idv-conformance receiver`; resolves with the exit status. */
export async function runReceiverCheck(
  argv: string[],
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const args = await readArgs(RECEIVER_USAGE, io, () => parse(argv, env));
  if (typeof args === "number") return args;
  const out: Writable = args.out ? await openOut(args.out) : io.stdout;
  try {
    const { results, notes } = await runBattery({
      url: args.url,
      ...(args.auth ? { auth: args.auth } : {}),
      ...(args.workflowUrl ? { workflowUrl: args.workflowUrl } : {}),
      timeoutMs: args.timeoutMs,
    });
    const report: ActiveReport = {
      title: "idv-conformance receiver",
      target: shownUrl(args.url),
      results,
      latency: latencyRows(results),
      notes,
    };
    await writeActiveReport(args.format, report, out);
    return summarize(results).failed > 0 ? 1 : 0;
  } finally {
    closeIdleSockets();
    if (args.out) await closeOut(out);
  }
}
