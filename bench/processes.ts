// Helpers the benchmarks share for the servers they start as child processes.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

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
