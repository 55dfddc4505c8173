import { Worker } from "node:worker_threads";
import type { EntryResult } from "./findings.js";
import { InputError } from "./input-error.js";

/** What one worker checks. */
export interface WorkerJob {
  command: "check" | "webhooks";
  file: string;
  spec?: string;
  basePaths: string[];
}

/** What a worker posts back. */
export type WorkerMessage =
  | { type: "batch"; results: EntryResult[] }
  | { type: "done" }
  | { type: "input-error"; where: string; reason: string }
  | { type: "error"; name: string };

/** The results of one file, as its worker posts them, read in order. */
class FileRun {
  private readonly queue: WorkerMessage[] = [];
  private wake: (() => void) | undefined;

  constructor(readonly worker: Worker) {
    worker.on("message", (m: WorkerMessage) => this.push(m));
    worker.on("error", (e) => this.push({ type: "error", name: e.name }));
    worker.on("exit", (code) => {
      if (code !== 0) this.push({ type: "error", name: `worker exit ${code}` });
    });
  }

  private push(message: WorkerMessage): void {
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
 * Check files in up to `jobs` worker threads at once, one file per worker, and yield the results in the
 * order of the files. A file that finishes early waits, in memory, for the files before it.
 */
export async function* checkInWorkers(
  jobs: number,
  files: string[],
  job: Omit<WorkerJob, "file">,
): AsyncGenerator<EntryResult> {
  const runs: FileRun[] = [];
  const start = (i: number) => {
    const file = files[i];
    if (file !== undefined) runs[i] = new FileRun(startWorker({ ...job, file }));
  };
  for (let i = 0; i < Math.min(jobs, files.length); i++) start(i);
  try {
    for (let i = 0; i < files.length; i++) {
      const run = runs[i];
      if (!run) break;
      yield* run.results();
      await run.worker.terminate();
      start(i + Math.min(jobs, files.length));
    }
  } finally {
    await Promise.all(runs.map((r) => r?.worker.terminate()));
  }
}
