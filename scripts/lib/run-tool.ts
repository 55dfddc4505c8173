import { spawnSync } from "node:child_process";
import { fromRoot, ROOT } from "./paths.js";

/** Environment that keeps every tool from phoning home. */
export const QUIET_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  SCARF_ANALYTICS: "false",
  DO_NOT_TRACK: "1",
  NO_UPDATE_NOTIFIER: "1",
};

export interface ToolResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run a binary from node_modules/.bin in the repository root and capture its output. */
export function runTool(bin: string, args: string[]): ToolResult {
  const result = spawnSync(fromRoot("node_modules/.bin", bin), args, {
    cwd: ROOT,
    env: QUIET_ENV,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}
