// The one place that decides how the tests start `idv-sandbox` and `idv-conformance` as processes.
// By default: the sources through tsx, with this node. With IDV_TEST_BINARIES=DIR (npm run
// test:binaries): the single executables of DIR (npm run build:binaries), each copied alone into an
// empty folder of its own and run with no node on PATH, so the same tests judge what a team without
// Node runs.
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, linkSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";
import { fromRoot } from "../../scripts/lib/paths.js";

/** The programs, as the npm bins and the executables are named. */
export type CliTool = "idv-sandbox" | "idv-conformance";

/** How to start one run: the command, its arguments and its environment. */
export interface CliLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** The folder of single executables the tests run instead of the sources, if any. */
export const TEST_BINARIES: string | undefined = process.env.IDV_TEST_BINARIES || undefined;

const SOURCES: Record<CliTool, string> = {
  "idv-sandbox": "sandbox/cli.ts",
  "idv-conformance": "conformance/cli.ts",
};

// tsx by its file URL, so that a run from any working folder finds it.
const TSX = pathToFileURL(fromRoot("node_modules/tsx/dist/loader.mjs")).href;

const alone = new Map<CliTool, string>();

/** The executable of `tool` copied alone into a fresh folder (made once per test file). */
function aloneCopy(dir: string, tool: CliTool): string {
  const known = alone.get(tool);
  if (known) return known;
  const name = `${tool}-linux-x64`;
  const source = join(dir, name);
  if (!existsSync(source)) throw new Error(`IDV_TEST_BINARIES: no ${name} in ${dir}`);
  // Under DIR, which npm run test:binaries removes at its end; a hard link when it can (no 130 MB copy).
  const folder = mkdtempSync(join(dir, `alone-${tool}-`));
  const copy = join(folder, name);
  try {
    linkSync(source, copy);
  } catch {
    copyFileSync(source, copy);
  }
  chmodSync(copy, 0o755);
  if (readdirSync(folder).length !== 1) throw new Error(`${folder} holds more than ${name}`);
  alone.set(tool, copy);
  return copy;
}

/** PATH without each folder that holds a `node` (this machine has one in /usr/bin and /bin). */
export function pathWithoutNode(path: string | undefined): string {
  const hasNode = (folder: string): boolean => {
    try {
      return statSync(join(folder, "node")).isFile();
    } catch {
      return false;
    }
  };
  return (path ?? "")
    .split(delimiter)
    .filter((folder) => folder !== "" && !hasNode(folder))
    .join(delimiter);
}

/** How to run `tool` with `args` in `env` (default this process's): the sources, or the executable. */
export function cliLaunch(tool: CliTool, args: string[], env: NodeJS.ProcessEnv = process.env): CliLaunch {
  if (!TEST_BINARIES) {
    return { command: process.execPath, args: ["--import", TSX, fromRoot(SOURCES[tool]), ...args], env };
  }
  // NODE_OPTIONS meant for this node's children would change the executable's V8 settings too.
  const { NODE_OPTIONS: _dropped, ...rest } = env;
  return { command: aloneCopy(TEST_BINARIES, tool), args, env: { ...rest, PATH: pathWithoutNode(env.PATH) } };
}

/** What one run printed and how it ended (-1: ended by a signal). */
export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run `tool` to its end without blocking this process (whose servers it may call). */
export function runCliProcess(
  tool: CliTool,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  const run = cliLaunch(tool, args, options.env);
  const child = spawn(run.command, run.args, {
    cwd: options.cwd ?? fromRoot(),
    env: run.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}
