// `redocly drift` (the project's own pinned @redocly/cli, telemetry off) beside `idv-conformance check` on the
// same HAR file made from the bench's labelled corpus: each tool run whole, as a user runs it, its CPU
// time and peak memory read by the process itself at exit (whole-process.mjs), rounds alternated; verdicts
// compared with the labels, and every disagreement listed.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { median } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { writeHarEntries } from "./corpus-har.js";
import type { IndependentEntry } from "./corpus-independent.js";

const DRIFT_BIN = fromRoot("node_modules/@redocly/cli/bin/cli.js");
/** The pinned version, as installed. */
export const DRIFT_VERSION: string = JSON.parse(
  readFileSync(fromRoot("node_modules/@redocly/cli/package.json"), "utf8"),
).version;

/** No telemetry, no update check, no analytics: the run sends nothing anywhere. */
const QUIET_ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  SCARF_ANALYTICS: "false",
  DO_NOT_TRACK: "1",
  NO_UPDATE_NOTIFIER: "1",
};

/**
 * A HAR status of 0 means "no answer" (the browser saw none): HAR cannot say "request recorded, response
 * missing" as the NDJSON corpus does, so those exchanges are left out of the HAR.
 */
const HAR_CANNOT_SAY = new Set(["response missing"]);

/** One tool's run: whole-process CPU and peak RSS, and the exchanges it failed, with the rules that said so. */
interface PeerRun {
  cpuMs: number;
  maxRssMb: number;
  failed: Map<number, string[]>;
}

type Peer = "ours" | "drift";
const PEER_NAMES: Record<Peer, string> = {
  ours: "`idv-conformance check`",
  drift: `\`redocly drift\` ${DRIFT_VERSION}`,
};

/** Run a script under whole-process.mjs; exit 1 (findings) is a normal end for both tools. */
function wholeProcess(dir: string, script: string, args: string[]): { cpuMs: number; maxRssMb: number } {
  const usage = join(dir, "usage.json");
  const run = spawnSync(process.execPath, [fromRoot("bench/whole-process.mjs"), usage, script, ...args], {
    encoding: "utf8",
    env: QUIET_ENV,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`${script} exited ${run.status}: ${run.stderr.slice(0, 2000)}`);
  return JSON.parse(readFileSync(usage, "utf8"));
}

/** `redocly drift` on the HAR: an exchange fails on a finding of severity error or warning (not info). */
function driftRun(dir: string, har: string): PeerRun {
  const out = join(dir, "drift-report.json");
  const spec = fromRoot("generated/openapi.json");
  // basepath: the corpus's URLs are on three origins, none of them the contract's servers.
  const args = ["drift", har, "--api", spec, "--match-mode", "basepath", "--format", "json", "-o", out];
  const usage = wholeProcess(dir, DRIFT_BIN, args);
  const report = JSON.parse(readFileSync(out, "utf8")) as {
    problems: { exchangeIndex: number; severity: string; ruleId: string }[];
  };
  const failed = new Map<number, string[]>();
  for (const p of report.problems) {
    if (p.severity !== "error" && p.severity !== "warning") continue;
    const rules = failed.get(p.exchangeIndex) ?? [];
    if (!rules.includes(p.ruleId)) rules.push(p.ruleId);
    failed.set(p.exchangeIndex, rules);
  }
  return { ...usage, failed };
}

/** `idv-conformance check` (compiled, in `dist`) on the HAR, JSON report. */
function oursRun(dir: string, dist: string, har: string): PeerRun {
  const out = join(dir, "ours-report.json");
  const usage = wholeProcess(dir, join(dist, "conformance/cli.js"), [
    "check",
    har,
    "--format",
    "json",
    "--out",
    out,
  ]);
  const report = JSON.parse(readFileSync(out, "utf8")) as {
    entries: { index: number; ok: boolean; violations: { check: string }[] }[];
  };
  const failed = new Map<number, string[]>();
  for (const e of report.entries)
    if (!e.ok) failed.set(e.index, [...new Set(e.violations.map((v) => v.check))]);
  return { ...usage, failed };
}

/** Agreement with the labels, and each disagreement by what the exchange was and what the tool said. */
function agreement(run: PeerRun, entries: IndependentEntry[]) {
  const disagreements = new Map<string, number>();
  let right = 0;
  entries.forEach((want, i) => {
    const rules = run.failed.get(i);
    if ((rules === undefined) === (want.mutation === undefined)) {
      right++;
      return;
    }
    const got = rules === undefined ? "passed" : `failed (${rules.slice(0, 3).join(", ")})`;
    const key = `${want.mutation ?? "valid exchange"} → ${got}`;
    disagreements.set(key, (disagreements.get(key) ?? 0) + 1);
  });
  return { right, disagreements };
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
const range = (values: number[], f: (n: number) => string) =>
  `${f(Math.min(...values))}–${f(Math.max(...values))}`;
const seconds = (ms: number) => (ms / 1000).toFixed(2);

/** Measure both tools on the corpus as HAR, `rounds` times alternated; give the bench section's Markdown. */
export async function measureDrift(
  dist: string,
  dir: string,
  corpus: IndependentEntry[],
  rounds: number,
): Promise<string> {
  const entries = corpus.filter((e) => !HAR_CANNOT_SAY.has(e.mutation ?? ""));
  const har = join(dir, "drift-corpus.har");
  await writeHarEntries(
    har,
    entries.map((e) => e.line),
  );
  const runs: Record<Peer, PeerRun[]> = { ours: [], drift: [] };
  for (let r = 0; r < rounds; r++) {
    const order: Peer[] = r % 2 === 0 ? ["ours", "drift"] : ["drift", "ours"];
    process.stderr.write(`bench:conformance drift round ${r + 1}/${rounds}: ${order.join(", ")}\n`);
    for (const peer of order) runs[peer].push(peer === "ours" ? oursRun(dir, dist, har) : driftRun(dir, har));
  }
  const peers: Peer[] = ["ours", "drift"];
  const agree = {
    ours: agreement(runs.ours[0] as PeerRun, entries),
    drift: agreement(runs.drift[0] as PeerRun, entries),
  };
  const cpu = (p: Peer) => runs[p].map((r) => r.cpuMs);
  const rss = (p: Peer) => runs[p].map((r) => r.maxRssMb);
  const row = (name: string, f: (p: Peer) => string) => `| ${name} | ${peers.map(f).join(" | ")} |`;
  const rows = peers.flatMap((p) =>
    [...agree[p].disagreements.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([what, n]) => `| ${PEER_NAMES[p]} | ${what} | ${n} |`),
  );
  const left = corpus.length - entries.length;
  return `## Conformance suite beside \`redocly drift\` (\`npm run bench\`)

**Traffic.** The mixed corpus of the section above (labelled, confirmed by the bench's reference validator) as one
HAR 1.2 file of ${fmt(entries.length)} entries${left > 0 ? ` (the ${fmt(left)} exchanges whose response is missing are left out: HAR writes that as status 0, "no answer", which is not a contract violation)` : ""}.
**Method.** Each tool run whole, as a user runs it, in its own process: \`idv-conformance check FILE --format json\`
(compiled) and \`redocly drift FILE --api generated/openapi.json --match-mode basepath --format json\` (the
project's pinned @redocly/cli ${DRIFT_VERSION}, telemetry and update checks off; \`basepath\` because the corpus's
origins are not the contract's servers). CPU time (user + system) and peak RSS are read by the process itself at
exit (\`bench/whole-process.mjs\`): Node's start, loading the contract and reading the file are included. ${rounds}
rounds, the order alternated; medians, with the range. A drift verdict fails an exchange on any finding of severity
error or warning; info findings (drift reports every header the contract does not list, the service's own
\`Svc-API-Key\` and \`Svc-Secret\` among them, as info) do not count. \`CONFORMANCE_BENCH_ONLY=drift npm run bench\`
measures this section alone.

${row("", (p) => PEER_NAMES[p])}
|---|---|---|
${row("Verdicts agreeing with the labels", (p) => `${agree[p].right} / ${entries.length}`)}
${row("CPU, whole process (median; range)", (p) => `${seconds(median(cpu(p)))} s (${range(cpu(p), seconds)})`)}
${row("Exchanges per CPU second (median)", (p) => fmt(entries.length / (median(cpu(p)) / 1000)))}
${row("Peak RSS (median; range)", (p) => `${median(rss(p)).toFixed(0)} MB (${range(rss(p), (n) => n.toFixed(0))})`)}
${
  rows.length === 0
    ? "\nNo disagreement with the labels.\n"
    : `
Every disagreement with the labels, by tool, what the exchange was and what the tool said:

| Side | Label → verdict | Exchanges |
|---|---|---|
${rows.join("\n")}
`
}`;
}
