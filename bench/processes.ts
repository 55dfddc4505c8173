// Helpers the benchmarks share for the servers they start as child processes.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { fromRoot } from "../scripts/lib/paths.js";
import { runTool } from "../scripts/lib/run-tool.js";

/** A loopback port free at the moment of asking, for a child process to listen on. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Stop a child with SIGTERM and wait for it to exit (at once when it already has, by code or signal). */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/**
 * The package's own build (tsconfig.build.json, as `npm run build` compiles it) into `out`, with
 * generated/'s JavaScript beside it: a folder of the benchmark's own, since dist/ is rebuilt by
 * other commands and a run must not lose its server midway.
 */
export function compilePackageTo(out: string): void {
  rmSync(fromRoot(out), { recursive: true, force: true });
  const tsc = runTool("tsc", ["-p", "tsconfig.build.json", "--outDir", out]);
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  for (const file of readdirSync(fromRoot("generated")).filter((f) => f.endsWith(".js")))
    copyFileSync(fromRoot("generated", file), fromRoot(out, "generated", file));
}
