// The command `idv-conformance proxy … -- CMD…` runs: CMD with IDV_BASE_URL pointing at the proxy,
// its output on stderr (stdout holds only the report), and how it ended.
import { spawn } from "node:child_process";
import type { Writable } from "node:stream";

/** How a command ended: its exit code or signal, or why it could not start (an errno code). */
export type CommandEnd = { code: number | null; signal: NodeJS.Signals | null } | { failed: string };

/** A command running. */
export interface RunningCommand {
  /** Resolves once it has ended and its output is written; never rejects. */
  ended: Promise<CommandEnd>;
  /** Ask it to stop (SIGTERM), when it still runs. */
  stop(): void;
}

/**
 * Run `argv` directly (no shell: `sh -c '…'` for a pipeline) with `env` added to this process's
 * environment; its stdout and stderr go to `output`, its stdin is this process's.
 */
export function runCommand(argv: string[], env: Record<string, string>, output: Writable): RunningCommand {
  const [file, ...args] = argv;
  const child = spawn(file ?? "", args, {
    env: { ...process.env, ...env },
    stdio: ["inherit", "pipe", "pipe"],
  });
  const ended = new Promise<CommandEnd>((resolve) => {
    // 'error' without 'close' when it could not start; 'close' once its streams are drained.
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) resolve({ failed: error.code ?? error.name });
    });
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  for (const stream of [child.stdout, child.stderr]) stream?.pipe(output, { end: false });
  return {
    ended,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    },
  };
}

/** How a command ended, in words; undefined when it succeeded. */
export function commandFailure(end: CommandEnd): string | undefined {
  if ("failed" in end) return `could not be started (${end.failed})`;
  if (end.signal) return `was ended by ${end.signal}`;
  return end.code === 0 ? undefined : `exited ${end.code}`;
}
