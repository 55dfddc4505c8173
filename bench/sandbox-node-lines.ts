// The in-process flow of bench/sandbox-in-process.ts on each Node line whose binary the tests have
// already fetched (node_modules/.cache/node-lines, `npm run test:node-lines`): nothing is downloaded
// here. Each line runs in a process of its own, one after another.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { fromRoot } from "../scripts/lib/paths.js";
import { QUIET_ENV } from "../scripts/lib/run-tool.js";
import { cachedNodeBinary, NODE_LINES_CACHE } from "../test/support/node-binary.js";

/** One Node line's medians of one flow (ms), their ratio, and their spreads (median (min–max)). */
export interface LineResult {
  node: string;
  here: number;
  http: number;
  ratio: number;
  spreads: { here: string; http: string; paired: string };
}

/** The Node binaries fetched for the tests, by version, newest line last. */
function cachedNodes(): { version: string; binary: string }[] {
  if (!existsSync(NODE_LINES_CACHE)) return [];
  return readdirSync(NODE_LINES_CACHE)
    .filter((name) => /^\d+\.\d+\.\d+$/.test(name))
    .map((version) => ({ version, binary: cachedNodeBinary(version) }))
    .filter((n) => existsSync(n.binary))
    .sort((a, b) => Number(a.version.split(".")[0]) - Number(b.version.split(".")[0]));
}

/** The in-process flow measured on each cached Node line other than this process's. */
export function measureOnNodeLines(): LineResult[] {
  const results: LineResult[] = [];
  for (const { version, binary } of cachedNodes()) {
    if (`v${version}` === process.version) continue;
    const run = spawnSync(binary, ["--import", "tsx", fromRoot("bench/sandbox-in-process.ts"), "--json"], {
      cwd: fromRoot("."),
      env: QUIET_ENV,
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`Node ${version}: the in-process flow failed:\n${run.stderr}`);
    const measured = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}");
    const { here, http, ratio, spreads } = measured;
    results.push({ node: `v${version}`, here, http, ratio, spreads });
  }
  return results;
}
