// One run of each tool for `bench/probe-generative.ts`: a fresh compiled sandbox, the defect server in
// front of it, and the tool as users run it (the probe's compiled bin; Schemathesis's own command,
// through `idv-conformance proxy --sign`, since it cannot sign v4 requests). Each run reports the
// operations it failed on, the requests it sent and its wall time; a run past its budget is stopped.
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { fromRoot, ROOT } from "../scripts/lib/paths.js";
import { PHASES } from "../conformance/probe/probe-case.js";
import type { Defect } from "./probe-defects/defect.js";
import { operationById } from "./probe-defects/exchange.js";
import { startDefectServer } from "./probe-defects/server.js";
import { stop } from "./processes.js";

const KEY = "bench-generative-key";
const SECRET = "bench-generative-secret";
/** Past the budget a run gets this long to write its report before it is stopped. */
const GRACE_MS = 60_000;

/** What one run of a tool gave. */
export interface ToolRun {
  /** The operations with a failed request (or a failed test case). */
  failedOperations: Set<string>;
  /** The phases of the probe whose requests failed, by operation (the probe only). */
  phasesByOperation: Map<string, Set<string>>;
  requests: number;
  seconds: number;
  /** Stopped at the budget: its figures are what it did until then. */
  cut: boolean;
}

/** What a run is aimed at: a defect (none: the clean proxy), the operations, the seed and budget. */
export interface RunPlan {
  defect: Defect | undefined;
  operations: readonly string[] | undefined;
  seed: number;
  budgetSeconds: number;
}

/** The probe's requests at most in one run: more than the time budget lets it send. */
const MAX_REQUESTS = 100_000;

/** The probe's arguments for a plan: every phase PHASES lists (a phase added later runs here with no change). */
export function probeArgs(plan: RunPlan, url: string): string[] {
  // The time is the budget of both tools: the probe's request budget is set past what it can spend.
  const args = ["probe", "--base-url", url, "--format", "json", "--seed", String(plan.seed)];
  args.push("--max-requests", String(MAX_REQUESTS));
  args.push("--phases", PHASES.join(","));
  if (plan.operations) args.push("--operations", plan.operations.join(","));
  args.push("--generative-time", String(plan.budgetSeconds * 1000));
  return args;
}

/** The compiled sandbox as `npm run sandbox` starts it, on a free port; resolves with its URL. */
async function startSandbox(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [fromRoot("dist/sandbox/cli.js"), "--port", "0", "--key", KEY, "--secret", SECRET, "--print-url"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => resolve(line.trim()));
    child.once("exit", (code) => reject(new Error(`the sandbox exited (${code}) before its URL`)));
  });
  child.stdout!.resume();
  return { child, url: url.replace(/\/$/, "") };
}

/** Spawn a command, stop it past the deadline; resolves with its stdout, wall seconds and whether cut. */
function timed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  deadlineMs: number,
): Promise<{ stdout: string; seconds: number; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // Its own process group: stopping it at the deadline stops what it started (a tool under the proxy).
    const child = spawn(command, args, {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    const chunks: Buffer[] = [];
    let cut = false;
    const timer = setTimeout(() => {
      cut = true;
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    }, deadlineMs);
    child.stdout!.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("exit", () => {
      clearTimeout(timer);
      const stdout = Buffer.concat(chunks).toString("utf8");
      resolve({ stdout, seconds: (performance.now() - started) / 1000, cut });
    });
  });
}

/** Run a tool against a fresh sandbox behind the plan's defect server, and stop both. */
async function aimed(plan: RunPlan, run: (url: string) => Promise<ToolRun>): Promise<ToolRun> {
  const sandbox = await startSandbox();
  const server = await startDefectServer({ upstream: sandbox.url, defect: plan.defect });
  try {
    return await run(server.url);
  } finally {
    await server.close();
    await stop(sandbox.child);
  }
}

interface ProbeJson {
  summary: { requests: number };
  results: { phase: string; operationId: string | null; ok: boolean }[];
}

/** One probe run of a plan. */
export function runProbe(plan: RunPlan): Promise<ToolRun> {
  return aimed(plan, async (url) => {
    const env = { ...process.env, IDV_API_KEY: KEY, IDV_API_SECRET: SECRET };
    const args = [fromRoot("dist/conformance/cli.js"), ...probeArgs(plan, url)];
    const { stdout, seconds, cut } = await timed(
      process.execPath,
      args,
      env,
      plan.budgetSeconds * 1000 + GRACE_MS,
    );
    const report = JSON.parse(stdout) as ProbeJson;
    const failedOperations = new Set<string>();
    const phasesByOperation = new Map<string, Set<string>>();
    for (const r of report.results) {
      if (r.ok || r.operationId === null) continue;
      failedOperations.add(r.operationId);
      phasesByOperation.set(r.operationId, (phasesByOperation.get(r.operationId) ?? new Set()).add(r.phase));
    }
    return { failedOperations, phasesByOperation, requests: report.summary.requests, seconds, cut };
  });
}

/** Schemathesis's command on PATH (`schemathesis`, else `st`), or undefined when it is not installed. */
export function schemathesisCommand(): string | undefined {
  for (const name of ["schemathesis", "st"])
    for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
  return undefined;
}

/** The operations of JUnit test cases that failed, by the case's `METHOD /path` name. */
export function junitFailedOperations(xml: string, operations: readonly string[]): Set<string> {
  const failed = new Set<string>();
  for (const m of xml.matchAll(/<testcase\b[^>]*\bname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)) {
    if (!/<(failure|error)\b/.test(m[2] ?? "")) continue;
    for (const id of operations) {
      const op = operationById(id);
      // The whole name: `POST /api/v4/outsource_cases` is a prefix of the upload's.
      if ((m[1] ?? "").trim() === `${op.method.toUpperCase()} ${op.template}`) failed.add(id);
    }
  }
  return failed;
}

/** One Schemathesis 4.x run of a plan: its cases signed by the suite's proxy, its verdicts from JUnit. */
export function runSchemathesis(
  command: string,
  plan: RunPlan,
  allOperations: readonly string[],
): Promise<ToolRun> {
  return aimed(plan, async (url) => {
    const dir = mkdtempSync(join(tmpdir(), "bench-st-"));
    const junit = join(dir, "junit.xml");
    const include = (plan.operations ?? []).flatMap((id) => ["--include-operation-id", id]);
    const st = ["run", fromRoot("generated/openapi.json"), "--seed", String(plan.seed), ...include];
    // As Schemathesis' own benchmarking guide runs it: bounded by the clock, every failure kept.
    st.push("--max-time", String(plan.budgetSeconds), "--continue-on-failure", "--no-shrink");
    st.push("--suppress-health-check", "all", "--report", "junit", "--report-junit-path", junit);
    // Schemathesis never holds the secret: the proxy signs what it forwards, and counts the exchanges.
    const line = [`'${command}'`, ...st.map((a) => `'${a}'`), '--url "$IDV_BASE_URL"'].join(" ");
    const args = [fromRoot("dist/conformance/cli.js"), "proxy", "--upstream", url, "--port", "0", "--sign"];
    args.push("--format", "json", "--", "sh", "-c", `exec env -u IDV_API_KEY -u IDV_API_SECRET ${line}`);
    const env = { ...process.env, IDV_API_KEY: KEY, IDV_API_SECRET: SECRET };
    const { stdout, seconds, cut } = await timed(
      process.execPath,
      args,
      env,
      plan.budgetSeconds * 1000 + GRACE_MS,
    );
    let xml = "";
    try {
      xml = readFileSync(junit, "utf8");
    } catch {
      // Stopped at the budget before it wrote its report: no verdict.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    let requests = Number.NaN;
    try {
      requests = (JSON.parse(stdout) as { summary: { entries: number } }).summary.entries;
    } catch {
      // The proxy was stopped with it: no count.
    }
    const failedOperations = junitFailedOperations(xml, plan.operations ?? allOperations);
    return { failedOperations, phasesByOperation: new Map(), requests, seconds, cut };
  });
}
