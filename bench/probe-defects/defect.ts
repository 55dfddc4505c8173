// The shape of one injected defect: what it is, where it lives, the inputs that reach it, and how it
// changes the sandbox's behaviour on them (and only on them).
import type { Json } from "../../src/contract/json.js";
import type { ForwardAnswer, SeenRequest } from "./exchange.js";

/** The kinds of defect the issue names (each reached only by some inputs). */
export type DefectKind =
  | "boundary"
  | "non-ascii"
  | "conditional rule"
  | "optional member"
  | "leap day"
  | "integer id"
  | "chain"
  | "state"
  | "response shape"
  | "error shape";

/** What a defect may remember between exchanges (a record it exported, by id), bounded. */
export class DefectMemory {
  private readonly kept = new Map<string, ForwardAnswer>();
  constructor(private readonly limit = 1000) {}
  /** Keep an answer under a key; the oldest goes once the limit is reached. */
  keep(key: string, answer: ForwardAnswer): void {
    this.kept.delete(key);
    this.kept.set(key, answer);
    if (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value as string);
  }
  /** The answer kept under a key. */
  get(key: string): ForwardAnswer | undefined {
    return this.kept.get(key);
  }
}

/** One step of a request that reaches a defect (for the test): an operation, its body, its id. */
export interface SampleStep {
  operationId: string;
  /** The body: the operation's first request example, changed by this (the example as is when absent). */
  body?: (example: Json) => Json;
  /** The path parameter: a literal, or read from the earlier steps' JSON answers. */
  param?: string | ((earlier: Json[]) => string);
}

/** One injected defect. */
export interface Defect {
  /** Its name, as `--defect NAME` or BENCH_DEFECT chooses it. */
  name: string;
  kind: DefectKind;
  /** One line: what is wrong. */
  description: string;
  /** The operations whose answers it changes. */
  operations: readonly string[];
  /** The operations a run aimed at it is restricted to: the touched ones and the journey reaching them. */
  scope: readonly string[];
  /** The input condition, in words. */
  trigger: string;
  /** Whether a request example of the contract meets the condition (the test checks every one). */
  examplesTrigger: boolean;
  /** Requests that meet the condition, in order; the last one's answer differs from the clean sandbox's. */
  sample: readonly SampleStep[];
  /** A request body to forward instead (a rule not enforced), when the condition holds. */
  before?: (request: SeenRequest) => Buffer | undefined;
  /** An answer to send instead of the sandbox's, when the condition holds. */
  after?: (request: SeenRequest, answer: ForwardAnswer, memory: DefectMemory) => ForwardAnswer | undefined;
}
