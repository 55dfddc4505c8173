// The stateful phase: the Arazzo workflows of arazzo/ (src/arazzo/, as the package ships them), each
// step sent through the probe's session and judged by the contract and by its successCriteria; the
// events a step awaits are awaited at the probe's receiver (workflow-events.ts). A new workflow is a
// new flow of the probe, with no code.
import type { Json } from "../../src/contract/json.js";
import { resolve } from "node:path";
import { bundledArazzo } from "../../src/arazzo/bundled.js";
import { documentsRoot } from "../../src/arazzo/workflow-file.js";
import { list, show } from "../../src/arazzo/documents.js";
import type { ProbeOperation } from "./contract-operations.js";
import { exampleParams } from "./contract-operations.js";
import type { ActiveResult } from "./active-report.js";
import type { ProbeCase } from "./probe-case.js";
import { unknownId } from "./safety.js";
import type { ProbeSession } from "./session.js";
import { type StepValues, stepsRead } from "./workflow-criteria.js";
import type { EventWaits } from "./workflow-events.js";
import { answeredValues, failedCriteria, outputsOf, stepCase } from "./workflow-step.js";

/** A workflow runs at most this many steps (a goto loop in a document ends here). */
const MAX_STEPS_RUN = 64;

/** A workflow of a document, and the document's file (its steps' `$file()` are read beside it). */
export interface Workflow {
  id: string;
  steps: Json[];
  documentFile?: string;
}

/** Every workflow of the package's Arazzo documents. */
export function packageWorkflows(): Workflow[] {
  return bundledArazzo().flatMap((file) => {
    const root = documentsRoot(file.path);
    const documentFile = root === undefined ? undefined : resolve(root, file.path);
    return list(file.document?.workflows).map((w) => ({
      id: show(w?.workflowId),
      steps: list(w?.steps),
      ...(documentFile ? { documentFile } : {}),
    }));
  });
}

/** The step a successful step goes to: its first `goto` whose criteria hold, else the next; -1 to end. */
function next(step: Json, index: number, steps: Json[], values: StepValues, where: string): number {
  for (const action of list(step?.onSuccess)) {
    if (failedCriteria(where, action?.criteria, values, "response.body").length > 0) continue;
    if (action?.type === "end") return -1;
    if (action?.type === "goto") {
      const target = steps.findIndex((s) => s?.stepId === action?.stepId);
      return target < 0 ? -1 : target;
    }
  }
  return index + 1;
}

/**
 * A run of a workflow by the generative phase: a step's body is its own with members drawn for
 * what it leaves out (`draw`, undefined to send it as written); each result is kept in `results`
 * instead of the report's (a shrinking run repeats it), and nothing is noted.
 */
export interface DrawnRun {
  draw: (op: ProbeOperation, payload: unknown) => ProbeCase["body"] | undefined;
  results: ActiveResult[];
}

/** Run one workflow: each step in order, the steps that read a failed one skipped and said so. */
export async function runWorkflow(
  session: ProbeSession,
  workflow: Workflow,
  byId: Map<string, ProbeOperation>,
  events: EventWaits,
  drawn?: DrawnRun,
): Promise<void> {
  const note = (text: string) => void (drawn ? undefined : session.notes.push(text));
  const values: StepValues = { inputs: new Map(), steps: new Map() };
  const failed = new Set<string>();
  let index = 0;
  for (let run = 0; run < MAX_STEPS_RUN && index >= 0 && index < workflow.steps.length; run++) {
    const step = workflow.steps[index];
    const stepId = show(step?.stepId);
    const where = `workflow ${workflow.id}, step ${stepId}`;
    const broken = stepsRead(JSON.stringify(step ?? null)).find((s) => failed.has(s));
    if (broken) {
      note(`stateful: ${where} was skipped: it depends on step ${broken}, which failed`);
      failed.add(stepId);
      index++;
      continue;
    }
    const made = stepCase(
      `${workflow.id}: ${stepId}`,
      step,
      byId.get(show(step?.operationId))!,
      values,
      session.marker,
      workflow.documentFile,
    );
    if ("problem" in made) {
      note(`stateful: ${where} was not sent: ${made.problem}`);
      failed.add(stepId);
      index++;
      continue;
    }
    let answered = values;
    // A step fails when no answer came or a criterion does not hold; an answer that breaks the
    // contract is reported, and its values still carry the journey on.
    let stepFailed = true;
    const body = drawn?.draw(made.case.op, made.requestBody);
    const c: ProbeCase = drawn
      ? { ...made.case, phase: "generative", case: `a journey: ${made.case.case}`, ...(body ? { body } : {}) }
      : made.case;
    const requestBody = body ? JSON.parse(body.bytes.toString("utf8")) : made.requestBody;
    const sent = await session.run(
      c,
      (answer, json) => {
        answered = answeredValues(answer, json, c.params, requestBody, values);
        const findings = failedCriteria(where, step?.successCriteria, answered, "response.body");
        stepFailed = findings.length > 0;
        return findings;
      },
      drawn !== undefined,
    );
    if (!sent) return;
    drawn?.results.push(sent.result);
    if (drawn && !sent.result.ok) return;
    if (stepFailed) {
      failed.add(stepId);
      index++;
      continue;
    }
    values.steps.set(stepId, outputsOf(step, answered));
    const awaited = await events.awaitAll({ workflowId: workflow.id, stepId }, step, answered);
    if (awaited === "unchecked") {
      // The next steps follow what the events tell (a PDF once completed): not run, not failed.
      if (index + 1 < workflow.steps.length)
        note(`stateful: ${where}: the steps after its awaited events were not run`);
      return;
    }
    if (awaited === "failed") failed.add(stepId);
    index = next(step, index, workflow.steps, answered, where);
  }
}

/** The operationIds a workflow's steps name. */
const operationsOf = (workflow: Workflow): string[] => workflow.steps.map((s) => show(s?.operationId));

/** A task of the stateful phase. */
type Task = () => Promise<void>;

/**
 * The tasks of the stateful phase: each workflow whose operations are all selected, and unknown
 * ids. `alone`: the workflows that move the sandbox's clock, to run one at a time after the others
 * (an hour moved for one journey would end another's pending verification in error).
 */
export function statefulTasks(
  session: ProbeSession,
  ops: ProbeOperation[],
  byId: Map<string, ProbeOperation>,
  events: EventWaits,
): { together: Task[]; alone: Task[] } {
  const selected = new Set(ops.map((op) => op.operationId));
  const tasks: Task[] = [];
  const alone: Task[] = [];
  for (const workflow of packageWorkflows()) {
    const names = operationsOf(workflow);
    const missing = names.find((n) => !byId.has(n));
    if (missing) {
      session.notes.push(
        `stateful: workflow ${workflow.id} names ${missing}, which the contract does not have`,
      );
      continue;
    }
    if (!names.every((n) => selected.has(n))) continue;
    (events.movesClock(workflow.steps) ? alone : tasks).push(() =>
      runWorkflow(session, workflow, byId, events),
    );
  }
  // An unknown id is the documented 404, on every operation that takes one.
  for (const op of ops) {
    if (op.pathParams.length === 0 || !op.statuses.has("404")) continue;
    const params = exampleParams(op);
    for (const p of op.pathParams) params.set(p.name, unknownId(p.schema, session.random));
    const c: ProbeCase = {
      phase: "stateful",
      case: "an id the deployment does not have",
      op,
      params,
      ...session.bodyFor(op),
      credentials: "valid",
      expect: { kind: "status", status: 404, check: "unknown_id_not_found" },
    };
    tasks.push(async () => void (await session.run(c)));
  }
  return { together: tasks, alone };
}
