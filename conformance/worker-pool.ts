import { Worker } from "node:worker_threads";
import type { EntryResult } from "./findings.js";
import { InputError } from "./input-error.js";

/** What the workers check: the command and its options; files are sent one at a time. */
export interface WorkerJob {
  command: "check" | "webhooks";
  spec?: string;
  basePaths: string[];
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
  | { type: "input-error"; position: number; where: string; reason: string }
  | { type: "error"; position: number; name: string };

/** The messages of one file, queued until the report reaches that file. */
class FileQueue {
  private readonly queue: WorkerMessage[] = [];
  private wake: (() => void) | undefined;

  push(message: WorkerMessage): void {
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
      if (message.type === "batch") yield* message.results;
      else if (message.type === "done") return;
      else if (message.type === "input-error") throw new InputError(message.where, message.reason);
      else throw new Error(`a worker failed (${message.name})`);
    }
  }
}

/** A worker on worker.js beside this file; from source (tsx), worker.ts with tsx registered in the thread. */
function startWorker(job: WorkerJob): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./worker.js", import.meta.url), { workerData: job });
  // Node 20 does not apply the parent's module hooks to a worker's entry point: register tsx there first.
  const api = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./worker.ts", import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: job });
}

/**
 * Check files in `jobs` worker threads, each kept for the whole run (its contract and validators are
 * loaded once), and yield the results in the order of the files. A worker that finishes a file takes the
 * next unstarted one; a file that finishes early waits, in memory, for the files before it.
 */
export async function* checkInWorkers(
  jobs: number,
  files: string[],
  job: WorkerJob,
  onWorkerStart?: (worker: Worker) => void,
): AsyncGenerator<EntryResult> {
  const queues = files.map(() => new FileQueue());
  const workers: Worker[] = [];
  /** The file each worker is on. */
  const current = new Map<Worker, number>();
  let next = 0;
  const assign = (worker: Worker) => {
    current.delete(worker);
    if (next >= files.length) return;
    const task: WorkerTask = { file: files[next] as string, position: next };
    current.set(worker, next++);
    worker.postMessage(task);
  };
  // A worker that dies fails the file it was on, and every file not yet given out.
  const fail = (worker: Worker, name: string) => {
    const position = current.get(worker);
    if (position !== undefined) queues[position]?.push({ type: "error", position, name });
    for (; next < files.length; next++) queues[next]?.push({ type: "error", position: next, name });
    current.delete(worker);
  };
  for (let i = 0; i < Math.min(jobs, files.length); i++) {
    const worker = startWorker(job);
    workers.push(worker);
    onWorkerStart?.(worker);
    worker.on("message", (m: WorkerMessage) => {
      queues[m.position]?.push(m);
      if (m.type !== "batch") assign(worker);
    });
    worker.on("error", (e) => fail(worker, e.name));
    worker.on("exit", (code) => {
      if (code !== 0) fail(worker, `worker exit ${code}`);
    });
    assign(worker);
  }
  try {
    for (const queue of queues) yield* queue.results();
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
