// The probe: requests made from the contract, sent to a deployment, every answer judged by the
// suite's checks (the same ones `check` runs on recorded traffic) and by what each phase expects.
import type { ActiveResult } from "./active-report.js";
import { probeOperations } from "./contract-operations.js";
import { plainCases } from "./plain-cases.js";
import { DEFAULT_EVENT_TIMEOUT_MS, isSafeMethod, PHASES, type ProbeOptions } from "./probe-case.js";
import { isLoopback } from "./safety.js";
import { generativeTasks } from "./generative-phase.js";
import { ProbeSession } from "./session.js";
import { openEventWaits } from "./workflow-events.js";
import { statefulTasks } from "./workflow-run.js";

export { PHASES, type Phase, type ProbeOptions, probeMarker } from "./probe-case.js";

/** Run up to `concurrency` tasks at once. */
async function pool<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
}

/** Run every phase asked for; the results in the order sent within each phase. */
export async function runProbe(options: ProbeOptions): Promise<{ results: ActiveResult[]; notes: string[] }> {
  const session = await ProbeSession.open(options);
  const all = probeOperations(session.document);
  const byId = new Map(all.map((op) => [op.operationId, op]));
  let ops = options.operations ? all.filter((op) => options.operations!.has(op.operationId)) : all;
  if (options.operations)
    for (const id of options.operations)
      if (!byId.has(id))
        session.notes.push(`--operations names ${JSON.stringify(id)}, which the contract does not have`);
  if (options.readOnly) {
    const skipped = ops.filter((op) => !isSafeMethod(op.method)).length;
    ops = ops.filter((op) => isSafeMethod(op.method));
    if (skipped > 0) session.notes.push(`--read-only: ${skipped} operations that change state were not sent`);
  }
  if (!isLoopback(options.baseUrl) && ops.some((op) => op.pathParams.length > 0))
    session.notes.push(
      "not a loopback host: operations on a record were sent ids the deployment cannot have, never the contract's example ids",
    );
  const phases = new Set(options.phases);
  for (const phase of PHASES) {
    if (!phases.has(phase)) continue;
    if (phase === "generative") {
      await pool(generativeTasks(session, ops, byId), options.concurrency);
    } else if (phase === "stateful") {
      const events = await openEventWaits(session, byId, {
        ...(options.receiverUrl ? { receiverUrl: options.receiverUrl } : {}),
        ...(options.receiverPort === undefined ? {} : { receiverPort: options.receiverPort }),
        eventTimeoutMs: options.eventTimeoutMs ?? DEFAULT_EVENT_TIMEOUT_MS,
      });
      try {
        const { together, alone } = statefulTasks(session, ops, byId, events);
        await pool(together, options.concurrency);
        for (const task of alone) await task();
      } finally {
        await events.close();
      }
    } else {
      const cases = plainCases(session, ops, new Set([phase]));
      await pool(
        cases.map((c) => async () => void (await session.run(c))),
        options.concurrency,
      );
    }
  }
  const notFound = notFoundExamples(session.results);
  if (notFound) session.notes.push(notFound);
  return { results: session.results, notes: session.notes };
}

/**
 * The examples phase's passes that were a documented 404: an example on a record (its path names an
 * id) may find no such record, which passes, but says nothing of the operation: counted apart.
 */
function notFoundExamples(results: ActiveResult[]): string | undefined {
  const examples = results.filter((r) => r.phase === "examples" && r.ok);
  const notFound = examples.filter((r) => r.status === 404);
  if (notFound.length === 0) return undefined;
  const ops = [...new Set(notFound.map((r) => r.operationId))];
  return `examples: ${notFound.length} of the ${examples.length} passed were answered 404 (their example ids name no record here): ${ops.join(", ")}; the stateful phase sends those operations records it made`;
}
