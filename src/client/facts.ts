import { operations } from "../../generated/operations.js";

/** What the runtime reads of one operation (see generated/operations.ts); absent lists are empty. */
export interface OperationFacts {
  readonly auth: "v2" | "v4" | "none";
  readonly binary?: readonly string[];
  readonly multipart?: boolean;
  readonly files?: readonly {
    readonly part: string;
    readonly maxBytesExclusive: number;
    readonly mediaTypes: readonly string[];
    readonly extensions: readonly string[];
  }[];
}

// Widened on purpose: the runtime must handle whatever the contract holds, not only today's values.
const byPath: Record<string, Record<string, OperationFacts | undefined>> = operations;

/** The facts of one operation by method and path template; undefined when the contract has no such operation. */
export const factsOf = (method: string, path: string): OperationFacts | undefined =>
  // Own paths only: a caller's "constructor" or "__proto__" is no operation.
  Object.hasOwn(byPath, path) ? byPath[path]?.[method.toUpperCase()] : undefined;
