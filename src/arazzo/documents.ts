// The hand-authored Arazzo documents (arazzo/*.arazzo.yaml): their names and how to walk them.
// Arazzo 1.0.1 has no event steps, so an awaited webhook is an `x-receive` entry on the step after
// whose request the service sends it (arazzo/README.md). Reading the YAML is build and test time
// (scripts/arazzo/load-yaml.ts); at run time the documents come from generated/arazzo.json.
import type { Json } from "../contract/json.js";

/** Where the Arazzo documents live, in the repository and in the package. */
export const ARAZZO_DIR = "arazzo";

/** The source descriptions' URLs: relative to arazzo/, the same in the repository and in the package. */
export const OPENAPI_URL = "../generated/openapi.yaml";
export const ASYNCAPI_URL = "../generated/asyncapi.yaml";

/** One Arazzo document and the path it was read from (relative to the root it was read under). */
export interface ArazzoFile {
  path: string;
  document: Json;
}

/** Whether a file name is an Arazzo document's (`*.arazzo.yaml`). */
export const isArazzoFile = (name: string): boolean => name.endsWith(".arazzo.yaml");

/** An API step of a workflow, with where it sits. */
export interface StepAt {
  workflowId: string;
  index: number;
  step: Json;
}

/** An awaited event: an `x-receive` entry, with the step it hangs on. */
export interface ReceiveAt extends StepAt {
  entry: Json;
  /** Its position in the step's `x-receive` list. */
  position: number;
}

/** A value from a document as text for a message or an id; never throws, whatever the value. */
export function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined)
    return String(value);
  return `(${Array.isArray(value) ? "list" : typeof value})`;
}

/** A value that should be a list, as one: anything else is an empty list (documents may be hostile). */
export const list = (value: Json): Json[] => (Array.isArray(value) ? value : []);

/** A value that should be an object, as one: anything else is an empty object. */
export const record = (value: Json): Record<string, Json> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};

/** Every step of every workflow of a document, in order. */
export function steps(document: Json): StepAt[] {
  return list(document?.workflows).flatMap((workflow: Json) =>
    list(workflow?.steps).map((step, index) => ({ workflowId: show(workflow?.workflowId), index, step })),
  );
}

/** Every awaited event of a document, in order. */
export function receives(document: Json): ReceiveAt[] {
  return steps(document).flatMap((at) =>
    list(at.step?.["x-receive"]).map((entry, position) => ({ ...at, entry, position })),
  );
}

/** A step's name for messages: `workflow biometric-resend-then-pdf, step resend`. */
export const stepName = (at: StepAt): string =>
  `workflow ${at.workflowId}, step ${show(at.step?.stepId ?? at.index)}`;

/** An awaited event's name for messages. */
export const receiveName = (at: ReceiveAt): string =>
  `${stepName(at)}, x-receive ${show(at.entry?.stepId ?? at.position)}`;
