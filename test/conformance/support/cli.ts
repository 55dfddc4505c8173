import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toNdjson } from "../../../bench/corpus.js";
import type { Exchange } from "../../../conformance/traffic/exchange.js";
import { fromRoot, ROOT } from "../../../scripts/lib/paths.js";
import { cliLaunch } from "../../support/cli-command.js";

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run `idv-conformance` in a child process (test/support/cli-command.ts), with `input` on its standard input. */
export function runCli(args: string[], input?: string | Buffer): CliResult {
  const run = cliLaunch("idv-conformance", args);
  const result = spawnSync(run.command, run.args, {
    cwd: ROOT,
    env: run.env,
    input,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temporary directory. */
export const tempDir = (): string => mkdtempSync(join(tmpdir(), "idv-conformance-test-"));

/** Write exchanges (or raw lines) as an NDJSON file in `dir`. */
export function writeNdjson(dir: string, name: string, lines: (Exchange | string)[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.map((l) => (typeof l === "string" ? l : toNdjson(l))).join("\n")}\n`);
  return file;
}

/** A fixture file's path. */
export const fixture = (name: string): string => fromRoot("test/conformance/fixtures", name);

/** Whether output looks like a stack trace. */
export const hasStackTrace = (text: string): boolean => /\n\s+at .+:\d+:\d+/.test(text);
