import { operations } from "../../generated/operations.js";

/** What the runtime reads of one operation (see generated/operations.ts). */
export interface OperationFacts {
  readonly auth: "v2" | "v4" | "none";
  readonly binary: readonly string[];
  readonly multipart: boolean;
  readonly files: readonly {
    readonly part: string;
    readonly maxBytesExclusive: number;
    readonly mediaTypes: readonly string[];
    readonly extensions: readonly string[];
  }[];
}

// Indexed by path, then method: the caller's path string is looked up as given, with no key to build.
// Widened on purpose: the runtime must handle whatever the contract holds, not only today's values.
const byPath = new Map<string, Record<string, OperationFacts | undefined>>();
for (const [key, facts] of Object.entries<OperationFacts>(operations)) {
  const [method = "", path = ""] = key.split(" ");
  byPath.set(path, { ...byPath.get(path), [method]: facts });
}

/** The facts of one operation by method and path template; undefined when the contract has no such operation. */
export const factsOf = (method: string, path: string): OperationFacts | undefined =>
  byPath.get(path)?.[method.toUpperCase()];
