// `redocly respect` run over arazzo/ the way docs/other-tools.md tells a user to: through
// `idv-conformance proxy --sign -- …`, the proxy holding the credentials and Respect none of them.
// What each workflow did is read back from Respect's JSON log, one line per step.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fromRoot } from "../../../scripts/lib/paths.js";
import type { Json } from "../../../src/contract/json.js";

/** Telemetry and update checks off for every tool the run starts. */
export const QUIET_ENV = {
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  SCARF_ANALYTICS: "false",
  DO_NOT_TRACK: "1",
  NO_UPDATE_NOTIFIER: "1",
};

export interface RespectRun {
  /** The proxy's exit status (1 when Respect failed or an exchange did not conform). */
  status: number;
  /** Everything the proxy and Respect wrote. */
  output: string;
  /** Each workflow Respect ran, by id: one line per step it executed. */
  workflows: Map<string, string[]>;
  /** The proxy's JSON report. */
  report: Json;
}

/** A step as one line: its id, the status it got, and the criteria that failed, if any. */
function stepLine(step: Json): string {
  const failed = (step.checks ?? [])
    .filter((c: Json) => !c.passed && c.severity === "error")
    .map((c: Json) => c.condition ?? c.name);
  const status = step.response?.statusCode ?? "no answer";
  return `${step.stepId} ${status}${failed.length > 0 ? ` ✗ ${failed.join("; ")}` : ""}`;
}

/** The steps of a workflow in order, a workflow a step went to (goto) flattened in. */
function stepLines(steps: Json[]): string[] {
  return steps.flatMap((s: Json) =>
    s.type === "workflow" ? stepLines(s.executedSteps ?? []) : [stepLine(s)],
  );
}

/** Respect's JSON log as lines by workflow. */
export function workflowLines(log: Json): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of Object.values<Json>(log.files ?? {}))
    for (const workflow of file.executedWorkflows ?? [])
      out.set(workflow.workflowId, stepLines(workflow.executedSteps ?? []));
  return out;
}

export interface RespectOptions {
  /** The service the proxy forwards to. */
  upstream: string;
  /** The credentials the proxy signs with (never given to Respect). */
  credentials: { key: string; secret: string };
  /** The Arazzo files, relative to the repository. */
  files: string[];
  /** Only these workflows (all by default). */
  workflows?: string[];
  /** A folder for the logs. */
  dir: string;
  /** Whether the proxy signs (the default; false shows what an unsigned run gets). */
  sign?: boolean;
  /** The proxy's recording, if wanted. */
  record?: string;
}

/**
 * Run `idv-conformance proxy --sign -- redocly respect …`. Respect's schema check is a warning: it
 * reads a PDF answer as `{}` against `type: string`; the proxy judges every body against the contract.
 */
export async function runRespect(options: RespectOptions): Promise<RespectRun> {
  const log = join(options.dir, "respect.json");
  const report = join(options.dir, "proxy.json");
  const tsx = pathToFileURL(fromRoot("node_modules/tsx/dist/loader.mjs")).href;
  const respect = [
    fromRoot("node_modules/@redocly/cli/bin/cli.js"),
    "respect",
    ...options.files,
    ...(options.workflows ?? []).flatMap((w) => ["-w", w]),
    "-J",
    log,
    "--severity",
    JSON.stringify({ SCHEMA_CHECK: "warn" }),
  ];
  const args = [
    "--import",
    tsx,
    fromRoot("conformance/cli.ts"),
    "proxy",
    "--upstream",
    options.upstream,
    "--port",
    "0",
    ...(options.sign === false ? [] : ["--sign"]),
    ...(options.record ? ["--record", options.record] : []),
    "--format",
    "json",
    "--out",
    report,
    "--",
    // Respect gets the proxy's address and none of the credentials.
    "sh",
    "-c",
    'exec env -u IDV_API_KEY -u IDV_API_SECRET "$@" --server "idv=$IDV_BASE_URL"',
    "sh",
    process.execPath,
    ...respect,
  ];
  const child = spawn(process.execPath, args, {
    cwd: fromRoot(),
    env: {
      ...process.env,
      ...QUIET_ENV,
      IDV_API_KEY: options.credentials.key,
      IDV_API_SECRET: options.credentials.secret,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const status = await new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  const parsed = JSON.parse(readFileSync(log, "utf8")) as Json;
  return {
    status,
    output,
    workflows: workflowLines(parsed),
    report: JSON.parse(readFileSync(report, "utf8")) as Json,
  };
}
