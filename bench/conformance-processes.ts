// The processes the conformance benchmark times from outside: spawn to first line on stdout, and the
// resident memory of a CLI run sampled from /proc while it runs.
import { spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { median } from "../scripts/lib/benchmarks-md.js";
import { fromRoot } from "../scripts/lib/paths.js";

/** The median time to first line of `node COMMAND…`, over `runs` runs. */
export async function timeToFirstVerdict(command: string[], runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await firstLineOf(process.execPath, command));
  return median(times);
}

/** Run the CLI on a large file and sample its resident memory from /proc while it runs. */
export function memoryRun(
  command: string[],
): Promise<{ seconds: number; samples: { at: number; rssMb: number }[]; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const proc = spawn(process.execPath, command, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const samples: { at: number; rssMb: number }[] = [];
    let peakMb = 0;
    const timer = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
        const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
        peakMb = Math.max(peakMb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
        samples.push({ at: (performance.now() - start) / 1000, rssMb: rss });
      } catch {
        // The process has just ended.
      }
    }, 250);
    proc.on("error", reject);
    proc.on("close", (code) => {
      clearInterval(timer);
      if (code !== 0 && code !== 1) reject(new Error(`CLI exited ${code}: ${stderr}`));
      else resolve({ seconds: (performance.now() - start) / 1000, samples, peakMb });
    });
  });
}

/** Write `total` lines, cycling through `lines`, without holding them all in memory. */
export async function writeLines(file: string, lines: string[], total: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < total; i++) {
    if (!out.write(`${lines[i % lines.length]}\n`))
      await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

/** Spawn-to-first-line times of commands, alternated run by run so load affects them alike. */
export async function paired(commands: Record<string, { cmd: string; args: string[] }>, runs: number) {
  const times: Record<string, number[]> = {};
  for (let i = 0; i < runs; i++) {
    for (const [name, { cmd, args }] of Object.entries(commands)) {
      (times[name] ??= []).push(await firstLineOf(cmd, args));
    }
  }
  return times;
}

/** Milliseconds from spawn to the first line on stdout of any command. */
export function firstLineOf(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"], cwd: fromRoot() });
    let done = false;
    proc.stdout.on("data", (chunk: Buffer) => {
      if (!done && chunk.includes(10)) {
        done = true;
        resolve(performance.now() - start);
      }
    });
    proc.on("error", reject);
    proc.on("close", () => (done ? undefined : reject(new Error(`no output from ${cmd} ${args.join(" ")}`))));
  });
}
