// The sides of the conformance benchmark, each run in a process of its own (bench/conformance-child.ts):
// their rates over a corpus, round after round, and how their verdicts agree with the corpus's labels.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildValidatorsModule } from "../scripts/build-conformance.js";
import { buildCoverageIndexModule } from "../scripts/lib/coverage-index-module.js";
import { median } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";
import type { Json } from "../src/contract/json.js";
import { compileForBench } from "./compile.js";
import type { IndependentEntry } from "./corpus-independent.js";

/** Compile the conformance sources with the project's tsc settings, as `dist/` will hold them. */
export function compileConformance(dir: string, spec: Json, log: (message: string) => void): string {
  const { out, problems } = compileForBench(dir, {
    include: [
      fromRoot("conformance/**/*.ts"),
      fromRoot("bench/conformance-child.ts"),
      fromRoot("bench/conformance-coverage.ts"),
    ],
  });
  if (problems) log(`tsc reported type errors (output still emitted):\n${problems}`);
  // tsc copies imported JSON but not JavaScript: the build-time validators are written beside it, fresh
  // from the contract being measured, as \`npm run build:conformance\` would write them.
  writeFileSync(join(out, "generated/conformance-validators.js"), buildValidatorsModule(spec));
  // And the coverage index, likewise: a `--coverage` run reads it as the installed package does.
  const asyncapi = JSON.parse(readFileSync(fromRoot("generated/asyncapi.json"), "utf8"));
  const index = buildCoverageIndexModule(
    spec,
    asyncapi,
    "generated/openapi.json and generated/asyncapi.json",
  );
  writeFileSync(join(out, "generated/coverage-index.js"), index);
  return out;
}

/** What one side's process reports of one corpus. */
export interface ChildReport {
  exchanges: number;
  /** CPU from process start to the end of the first pass (reading the corpus left out). */
  coldCpuMs: number;
  coldWallMs: number;
  warmCpuMs: number;
  warmWallMs: number;
  maxRssMb: number;
  verdicts: { ok: boolean; checks: string[] }[];
}

export type Side = "create" | "open" | "prism" | "floor";
export const SIDES: Side[] = ["create", "open", "prism", "floor"];
/** The sides that judge: the floor only parses, so it has no verdicts to compare. */
export type Judge = Exclude<Side, "floor">;
export const SIDE_NAMES: Record<Side, string> = {
  create: "`createConformanceChecker`",
  open: "`openConformanceChecker` (the CLI's)",
  prism: "Prism's validator",
  floor: "the floor",
};

/** A count or rate rounded, with thousands separators. */
export const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

function child(dist: string, mode: Side, corpus: string): ChildReport {
  const run = spawnSync(process.execPath, [join(dist, "bench/conformance-child.js"), mode, corpus], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${mode} child failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Median and spread of a side's rounds: exchanges per CPU second, cold and warm. */
function rates(reports: ChildReport[]) {
  const cold = reports.map((r) => r.exchanges / (r.coldCpuMs / 1000));
  const warm = reports.map((r) => r.exchanges / (r.warmCpuMs / 1000));
  return {
    cold: median(cold),
    coldSpread: `${fmt(Math.min(...cold))}–${fmt(Math.max(...cold))}`,
    warm: median(warm),
    warmSpread: `${fmt(Math.min(...warm))}–${fmt(Math.max(...warm))}`,
    rss: median(reports.map((r) => r.maxRssMb)),
  };
}

/** The check of ours each mutation should trip (any of them): whether the right rule said no, not only whether something did. */
const EXPECTED_CHECKS: Record<string, string[]> = {
  "unknown route": ["route_known"],
  "wrong method": ["route_known"],
  "missing credential": ["auth_headers_present"],
  "integer id with exponent": ["request_parameters"],
  "integer id with leading zero": ["request_parameters"],
  "integer id beyond 2^53": ["request_parameters"],
  "request media type json-evil": ["request_content_type"],
  "request media type text/plain": ["request_content_type"],
  "request body not JSON": ["request_body_schema"],
  "request body truncated": ["request_body_schema"],
  "request body invalid UTF-8": ["request_body_schema"],
  "request member missing": ["request_body_schema"],
  "request member wrong type": ["request_body_schema"],
  "request member undescribed": ["request_body_schema"],
  "status undocumented": ["status_code_documented"],
  "response missing": ["status_code_documented"],
  "response media type wrong": ["response_content_type"],
  "response body not JSON": ["response_body_schema"],
  "response member missing": ["response_body_schema", "error_shape"],
  "response member wrong type": ["response_body_schema", "error_shape"],
  "PDF that is not one": ["response_body_schema"],
  "Content-Disposition missing": ["response_headers"],
  "error body as a success body": ["error_shape"],
};

/** Mutations our side refused by another check than the expected one, by mutation and checks given. */
function wrongCheck(
  report: ChildReport,
  entries: IndependentEntry[],
): { hits: number; of: number; misses: Map<string, number> } {
  const misses = new Map<string, number>();
  let hits = 0;
  let of = 0;
  report.verdicts.forEach((v, i) => {
    const mutation = entries[i]?.mutation;
    const expected = mutation === undefined ? undefined : EXPECTED_CHECKS[mutation];
    if (!expected || v.ok) return;
    of++;
    if (v.checks.some((c) => expected.includes(c))) hits++;
    else {
      const key = `${mutation} → ${v.checks.join(", ")}`;
      misses.set(key, (misses.get(key) ?? 0) + 1);
    }
  });
  return { hits, of, misses };
}

/** Agreement of a side's verdicts with the labels, and every disagreement by what it was and what it got. */
function agreement(report: ChildReport, entries: IndependentEntry[]) {
  const disagreements = new Map<string, number>();
  let right = 0;
  report.verdicts.forEach((v, i) => {
    const want = entries[i] as IndependentEntry;
    if (v.ok === (want.mutation === undefined)) {
      right++;
      return;
    }
    const got = v.ok ? "passed" : `failed (${v.checks.slice(0, 3).join(", ")})`;
    const key = `${want.mutation ?? "valid exchange"} → ${got}`;
    disagreements.set(key, (disagreements.get(key) ?? 0) + 1);
  });
  return { right, disagreements };
}

/** One corpus measured: every side's rounds, rates, agreement with the labels, and whether the entry points agree. */
export function measureCorpus(
  dist: string,
  file: string,
  entries: IndependentEntry[],
  rounds: number,
  log: (message: string) => void,
) {
  // Rotate the order each round: the machine is shared and its load changes.
  const runs: Record<Side, ChildReport[]> = { create: [], open: [], prism: [], floor: [] };
  for (let r = 0; r < rounds; r++) {
    const order = [...SIDES.slice(r % SIDES.length), ...SIDES.slice(0, r % SIDES.length)];
    log(`round ${r + 1}/${rounds}: ${order.join(", ")}`);
    for (const side of order) runs[side].push(child(dist, side, file));
  }
  const measured = {
    create: rates(runs.create),
    open: rates(runs.open),
    prism: rates(runs.prism),
    floor: rates(runs.floor),
  };
  const agree: Record<Judge, ReturnType<typeof agreement>> = {
    create: agreement(runs.create[0] as ChildReport, entries),
    open: agreement(runs.open[0] as ChildReport, entries),
    prism: agreement(runs.prism[0] as ChildReport, entries),
  };
  const byCheck = wrongCheck(runs.open[0] as ChildReport, entries);
  // The two library entry points must give the same verdicts, run after run.
  const sameVerdicts = runs.create.every((r, i) =>
    r.verdicts.every((v, j) => v.ok === runs.open[i]?.verdicts[j]?.ok),
  );
  return { measured, agree, byCheck, sameVerdicts };
}

/** One corpus measured. */
export type Measured = ReturnType<typeof measureCorpus>;
