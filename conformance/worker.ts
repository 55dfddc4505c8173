// A worker thread of `idv-conformance --jobs N`: checks one file and posts its results in batches.
import { parentPort, workerData } from "node:worker_threads";
import type { EntryResult } from "./findings.js";
import { InputError } from "./input-error.js";
import { openSource } from "./open-source.js";
import type { WorkerJob, WorkerMessage } from "./worker-pool.js";

const BATCH = 512;

async function run(job: WorkerJob): Promise<void> {
  const post = (message: WorkerMessage) => parentPort?.postMessage(message);
  const results = (await openSource(job))(job.file);
  let batch: EntryResult[] = [];
  for await (const result of results) {
    batch.push(result);
    if (batch.length === BATCH) {
      post({ type: "batch", results: batch });
      batch = [];
    }
  }
  post({ type: "batch", results: batch });
  post({ type: "done" });
}

run(workerData as WorkerJob).catch((error: unknown) => {
  // Only what the main thread may print: an input error's words, or an error's name.
  const message: WorkerMessage =
    error instanceof InputError
      ? { type: "input-error", where: error.where, reason: error.reason }
      : { type: "error", name: error instanceof Error ? error.name : typeof error };
  parentPort?.postMessage(message);
});
