import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../../src/worker-thread.js";
import type { EntryResult } from "../findings/findings.js";
import { InputError } from "../traffic/input-error.js";
import { stoppedResult } from "../findings/unjudged.js";
import type { UnrecordedNotice } from "../traffic/gateway-logs.js";
import { stderrNotices } from "./notices.js";
import type { SeenLists } from "../coverage/seen.js";

/**
 * The heap (V8's old generation) each worker may use, in MiB. An entry may be up to MAX_ENTRY_BYTES
 * (64 MiB), and the costliest such entry (a JSON body of four million values) takes some 400 MB to
 * check, well within the limit; a worker that needs more is stopped and its file reported, the run
 * goes on.
 */
export const WORKER_HEAP_MB = 512;

/** The worker heap limit in force: WORKER_HEAP_MB, or IDV_CONFORMANCE_WORKER_HEAP_MB (digits, 16 or more). */
export function workerHeapMb(): number {
  const text = process.env.IDV_CONFORMANCE_WORKER_HEAP_MB;
  if (text === undefined || !/^[0-9]{1,6}$/.test(text)) return WORKER_HEAP_MB;
  const value = Number(text);
  return value >= 16 ? value : WORKER_HEAP_MB;
}

/** The most workers a run starts: one a core (more only share the cores, each with its own memory). */
export const maxJobs = (): number => availableParallelism();

/** What the workers check: the command and its options; files are sent one at a time. */
export interface WorkerJob {
  command: "check" | "webhooks";
  spec?: string;
  basePaths: string[];
  /** Record coverage: each worker posts what a file reached of the contract before the file's end. */
  coverage?: boolean;
}

/** What the main thread sends a worker: the next file to check (by its position in the run). */
export interface WorkerTask {
  file: string;
  position: number;
}

/** What a worker posts back, each message tagged with the position of the file it is about. */
export type WorkerMessage =
  | { type: "batch"; position: number; results: EntryResult[] }
  | { type: "done"; position: number }
  | { type: "coverage"; position: number; seen: SeenLists }
  | { type: "input-error"; position: number; where: string; reason: string }
  | { type: "error"; position: number; name: string }
  | { type: "stopped"; position: number; reason: string }
  | { type: "notice"; notice: UnrecordedNotice };

/** The messages about one file's entries (a notice is about the run). */
type FileMessage = Exclude<WorkerMessage, { type: "notice" }>;

/** The messages of one file, queued until the report reaches that file. */
class FileQueue {
  private readonly queue: FileMessage[] = [];
  private wake: (() => void) | undefined;
  /** The position of the next entry of the file, after those already reported. */
  private nextIndex = 0;

  constructor(private readonly file: string) {}

  push(message: FileMessage): void {
    this.queue.push(message);
    this.wake?.();
  }

  async *results(): AsyncGenerator<EntryResult> {
    while (true) {
      const message = this.queue.shift();
      if (!message) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
      if (message.type === "coverage") continue;
      if (message.type === "batch") {
        const last = message.results.at(-1);
        if (last) this.nextIndex = last.index + 1;
        yield* message.results;
      } else if (message.type === "done") return;
      else if (message.type === "stopped") {
        // What was checked is reported; the rest of the file stands as one violation.
        yield stoppedResult(this.file, this.nextIndex, message.reason);
        return;
      } else if (message.type === "input-error") throw new InputError(message.where, message.reason);
      else throw new Error(`a worker failed (${message.name})`);
    }
  }
}

/** A worker on worker.js beside this file (worker.ts from source). */
function startWorker(job: WorkerJob): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: workerHeapMb() };
  return startModuleWorker(import.meta.url, "worker", { workerData: job, resourceLimits });
}

/** Why a worker stopped, in the report's words. */
function stopReason(error: Error | undefined, code: number): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY")
    return `the worker checking it ran out of memory (its heap limit is ${workerHeapMb()} MiB)`;
  return `the worker checking it stopped (${error ? error.name : `exit code ${code}`})`;
}

/**
 * Check files in `jobs` worker threads (at most one a core), each kept for the whole run (its contract
 * and validators are loaded once), and yield the results in the order of the files. A worker that
 * finishes a file takes the next unstarted one; a file that finishes early waits, in memory, for the
 * files before it. A worker that stops (out of memory under its heap limit) ends its file with a
 * violation saying so, `onStopped` is told, and a new worker takes the files that remain. What a gateway
 * log does not record reaches `hooks.onNotice` (stderr, once a run, by default); with `job.coverage`,
 * `hooks.onCoverage` is given what each file reached of the contract, before the file ends.
 */
export async function* checkInWorkers(
  jobs: number,
  files: string[],
  job: WorkerJob,
  onWorkerStart?: (worker: Worker) => void,
  onStopped?: (file: string, reason: string) => void,
  hooks: {
    onNotice?: (notice: UnrecordedNotice) => void;
    onCoverage?: (seen: SeenLists) => void;
  } = {},
): AsyncGenerator<EntryResult> {
  const { onNotice = stderrNotices(), onCoverage } = hooks;
  const queues = files.map((file) => new FileQueue(file));
  const workers = new Set<Worker>();
  /** The file each worker is on. */
  const current = new Map<Worker, number>();
  let next = 0;
  // Each stop ends a file, so replacements are bounded by the number of files.
  let replacements = files.length;
  // Set when the run ends: the workers it terminates then are not stops.
  let closing = false;
  const assign = (worker: Worker) => {
    current.delete(worker);
    if (next >= files.length) return;
    const task: WorkerTask = { file: files[next] as string, position: next };
    current.set(worker, next++);
    worker.postMessage(task);
  };
  const stopped = (worker: Worker, error: Error | undefined, code: number) => {
    if (closing || !workers.delete(worker)) return;
    const position = current.get(worker);
    current.delete(worker);
    const reason = stopReason(error, code);
    if (position !== undefined) {
      queues[position]?.push({ type: "stopped", position, reason });
      onStopped?.(files[position] as string, reason);
    }
    if (next < files.length && replacements-- > 0) start();
    else if (workers.size === 0)
      for (; next < files.length; next++) queues[next]?.push({ type: "stopped", position: next, reason });
  };
  const start = () => {
    const worker = startWorker(job);
    workers.add(worker);
    onWorkerStart?.(worker);
    let failure: Error | undefined;
    worker.on("message", (m: WorkerMessage) => {
      // A notice is said once for the whole run, here, not once a worker.
      if (m.type === "notice") return onNotice(m.notice);
      if (m.type === "coverage") {
        onCoverage?.(m.seen);
        return;
      }
      queues[m.position]?.push(m);
      if (m.type !== "batch") assign(worker);
    });
    // An error event comes before the exit event of the same stop.
    worker.on("error", (e) => {
      failure = e;
    });
    worker.on("exit", (code) => {
      if (code !== 0 || failure) stopped(worker, failure, code);
    });
    assign(worker);
  };
  for (let i = 0; i < Math.min(jobs, maxJobs(), files.length); i++) start();
  try {
    for (const queue of queues) yield* queue.results();
  } finally {
    closing = true;
    await Promise.all([...workers].map((w) => w.terminate()));
  }
}
