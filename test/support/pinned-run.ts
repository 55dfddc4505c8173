// Runs a tool installed by pinnedTools() on a given Node.js line, with nothing allowed to phone
// home: HOME is a fresh folder (so no user configuration is read and nothing is left behind), the
// update and analytics switches every tool here honours are set, and test/support/no-network.mjs is
// preloaded so that any connection other than to loopback is refused and recorded.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { fromRoot } from "../../scripts/lib/paths.js";

export interface PinnedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Hosts the tool tried to reach (each attempt was refused). */
  network: string[];
}

export interface PinnedRunOptions {
  /** The HOME the tool sees; a new empty folder when not given. */
  home?: string;
  cwd?: string;
  env?: Record<string, string>;
  timeout?: number;
}

/** Switches that tools in this suite read to stay quiet and offline. */
export const OFFLINE_ENV: Record<string, string> = {
  CI: "true",
  DO_NOT_TRACK: "1",
  NO_UPDATE_NOTIFIER: "1",
  SCARF_ANALYTICS: "false",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

/** Run `node <script> ...args` with the given Node binary, offline and in a fresh HOME. */
export function runPinned(
  node: string,
  script: string,
  args: string[],
  options: PinnedRunOptions = {},
): PinnedRun {
  const home = options.home ?? mkdtempSync(join(tmpdir(), "idv-tool-home-"));
  const networkLog = join(mkdtempSync(join(tmpdir(), "idv-tool-net-")), "attempts.log");
  const run = spawnSync(node, [script, ...args], {
    cwd: options.cwd ?? fromRoot(),
    encoding: "utf8",
    timeout: options.timeout ?? 300_000,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      TMPDIR: tmpdir(),
      ...OFFLINE_ENV,
      ...options.env,
      NO_NETWORK_LOG: networkLog,
      NODE_OPTIONS: `--import ${pathToFileURL(fromRoot("test/support/no-network.mjs")).href}`,
    },
  });
  if (run.error) throw run.error;
  const network = existsSync(networkLog) ? readFileSync(networkLog, "utf8").split("\n").filter(Boolean) : [];
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, network };
}
