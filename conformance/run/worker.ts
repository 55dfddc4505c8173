// A worker thread of `idv-conformance --jobs N`: opens its checker once, then checks the files it is
// sent, one at a time, posting each file's results in batches.
import { parentPort, workerData } from "node:worker_threads";
import type { EntryResult } from "../findings/findings.js";
import { InputError } from "../traffic/input-error.js";
import { openSource } from "./open-source.js";
import type { WorkerJob, WorkerMessage, WorkerTask } from "./worker-pool.js";
import { SeenLocations } from "../coverage/seen.js";

const BATCH = 512;
/** How long a result may wait for its batch: a worker stopped for memory loses only what waited. */
const BATCH_WAIT_MS = 50;
const post = (message: WorkerMessage) => parentPort?.postMessage(message);

async function checkFile(
  source: (file: string) => AsyncIterable<EntryResult>,
  { file, position }: WorkerTask,
): Promise<void> {
  let batch: EntryResult[] = [];
  let timer: NodeJS.Timeout | undefined;
  // Posted when full, or soon after its first result: a large entry is read over many turns of the
  // event loop, so the results before it reach the main thread even if checking it exhausts the heap.
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (batch.length > 0) post({ type: "batch", position, results: batch });
    batch = [];
  };
  try {
    for await (const result of source(file)) {
      batch.push(result);
      if (batch.length === BATCH) flush();
      else timer ??= setTimeout(flush, BATCH_WAIT_MS);
    }
  } finally {
    flush();
  }
  // What the file reached of the contract, before its end: the main thread has it when the run ends.
  if (coverage) post({ type: "coverage", position, seen: coverage.take() });
  post({ type: "done", position });
}

const job = workerData as WorkerJob;
const coverage = job.coverage ? new SeenLocations() : undefined;
const opened = openSource(job, { onNotice: (notice) => post({ type: "notice", notice }), coverage });
// A contract that cannot be opened is reported with the first file; until then it must not count as unhandled.
opened.catch(() => undefined);
// Files are checked one after another: the next task waits for the one before it.
let chain: Promise<void> = Promise.resolve();

parentPort?.on("message", (task: WorkerTask) => {
  chain = chain.then(async () => {
    try {
      await checkFile(await opened, task);
    } catch (error) {
      // Only what the main thread may print: an input error's words, or an error's name.
      post(
        error instanceof InputError
          ? { type: "input-error", position: task.position, where: error.where, reason: error.reason }
          : {
              type: "error",
              position: task.position,
              name: error instanceof Error ? error.name : typeof error,
            },
      );
    }
  });
});
