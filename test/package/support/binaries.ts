// The single executables for the tests and the bench: built once into a folder of their own (dist/
// is rebuilt by other test files while these run), each then copied alone into an empty folder and
// run with an environment that has no node on PATH.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromRoot } from "../../../scripts/lib/paths.js";
import { QUIET_ENV } from "../../../scripts/lib/run-tool.js";

/** The tools, as the binaries are named. */
export type Tool = "idv-sandbox" | "idv-conformance";

/** Build the linux-x64 executables into `out` (about half a minute); their paths. */
export function buildBinaries(out: string): Record<Tool, string> {
  execFileSync(
    process.execPath,
    [fromRoot("node_modules/tsx/dist/cli.mjs"), fromRoot("scripts/build-binaries.ts")].concat([
      "--platform",
      "linux-x64",
      "--out",
      out,
    ]),
    { cwd: fromRoot(), env: QUIET_ENV, stdio: ["ignore", "ignore", "pipe"] },
  );
  return {
    "idv-sandbox": join(out, "idv-sandbox-linux-x64"),
    "idv-conformance": join(out, "idv-conformance-linux-x64"),
  };
}

/** A copy of one executable alone in a fresh empty folder. */
export function aloneInFolder(binary: string): string {
  const folder = mkdtempSync(join(tmpdir(), "idv-binary-"));
  const copy = join(folder, binary.split("/").pop()!);
  copyFileSync(binary, copy);
  return copy;
}

/** An environment with no node on PATH (an empty PATH: this machine has node in /usr/bin), HOME a fresh folder. */
export function nodelessEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), "idv-home-"));
  mkdirSync(home, { recursive: true });
  return { PATH: "", HOME: home, LANG: "C.UTF-8", DO_NOT_TRACK: "1" };
}

/** Whether `node` can be found on the PATH of `env` (it must not, for the binaries' runs). */
export function nodeOnPath(env: NodeJS.ProcessEnv): boolean {
  const found = spawnSync("node", ["--version"], { env });
  return found.error === undefined;
}

/** What one run printed and how it ended. */
export interface RunResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Run a command to its end. */
export function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): RunResult {
  const r = spawnSync(command, args, { env, cwd, encoding: "utf8", timeout: 120_000 });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

/** Run a command to its end without blocking this process (whose servers it may call). */
export function runAsync(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ stdout, stderr, code })));
}

/** Start a sandbox (`--json` is added) and resolve with the process and its first line, parsed. */
export async function startSandbox(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; first: { url: string; pid: number }; output: () => string }> {
  const child = spawn(command, [...args, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`sandbox exited ${code}: ${out}`)));
  });
  return { child, first: JSON.parse(first), output: () => out };
}

/** Stop a process with SIGTERM and resolve with its exit code. */
export function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  return exited;
}
