// The verdict on an entry that is reported rather than checked: a request the browser saw fail (there
// is no answer of the service to judge), an entry larger than the readers take, a file whose checking
// ran out of memory. Each is said in the report, in the suite's own words, never passed over.
import type { Exchange } from "../traffic/exchange.js";
import type { EntryResult } from "./findings.js";

/** Where a report files an entry: the operation (or message) it names, when known. */
export interface EntryRoute {
  method: string;
  path: string;
  operationId: string | null;
}

const MIB = 1024 * 1024;

/** A size in the units a person reads: MiB above one, else bytes. */
export const sizeText = (bytes: number): string =>
  bytes >= MIB && bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes.toLocaleString("en-US")} bytes`;

/** The result of an exchange the readers marked unjudged: a warning, never a verdict on the service. */
export function unjudgedResult(exchange: Exchange, route: EntryRoute, file?: string): EntryResult {
  const why = exchange.unjudged;
  const warning =
    why?.reason === "too-large"
      ? {
          in: "entry" as const,
          check: "entry_readable" as const,
          pointer: "",
          message: `the entry is larger than ${sizeText(why.limit)}; it was not read, so nothing of it was checked`,
        }
      : {
          in: "response.status" as const,
          check: "status_code_documented" as const,
          pointer: "",
          message: `the browser recorded no answer (status ${why?.status ?? 0}: the request failed, was blocked or was aborted); the exchange was not checked`,
        };
  const result: EntryResult = {
    index: exchange.index,
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    ok: true,
    violations: [],
    warnings: [warning],
  };
  if (file !== undefined) result.file = file;
  if (exchange.line !== undefined) result.line = exchange.line;
  return result;
}

/** Where an entry that was not read is filed: nothing of it is known but its place in the file. */
export const UNREAD_ROUTE: EntryRoute = { method: "", path: "", operationId: null };

/**
 * The result standing for the rest of a file whose checking stopped (its worker ran out of memory):
 * a violation, so the run does not pass over entries nobody checked.
 */
export function stoppedResult(file: string, index: number, reason: string): EntryResult {
  return {
    file,
    index,
    method: "",
    path: "",
    operationId: null,
    ok: false,
    violations: [
      {
        in: "entry",
        check: "entry_readable",
        pointer: "",
        message: `the file was not checked to its end, and nothing of it from this entry on is reported: ${reason}`,
      },
    ],
    warnings: [],
  };
}
