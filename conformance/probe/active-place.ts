// Where in the contract an active test's result belongs, for the reports that place results on the
// contract's own source lines (SARIF, GitHub annotations): a probe request on its operation (a finding
// of the suite's checks where `check` would place it, a finding on the answer's body on that response's
// member), an awaited event on its AsyncAPI operation, a receiver delivery on the message it is an
// example of. Built only from what the test chose (operation, path template, method, status, the
// finding's check and pointer), never from what the peer sent.
import bundledAsyncApi from "../../generated/asyncapi.json" with { type: "json" };
import { escapeToken as token } from "../../src/contract/json-pointer.js";
import { bundledContract } from "../checks/load-contract.js";
import { detailPointer } from "../findings/contract-detail.js";
import { contractPointer } from "../findings/contract-location.js";
import {
  loadSourceTables,
  nodeAt,
  type SourceLine,
  type SourceTable,
  sourceLine,
  tableOf,
} from "../findings/contract-source.js";
import type { EntryResult, Finding } from "../findings/findings.js";
import { CHECK_RULES } from "../findings/rules.js";
import { type ActiveFinding, type ActiveResult, RECEIVED_EVENT } from "./active-result.js";

/** The contracts a run was made from, and the source lines of each (when the bundled one's digest). */
export interface ActiveContracts {
  openapi?: unknown;
  asyncapi?: unknown;
  sources: Partial<Record<"openapi" | "asyncapi", SourceTable>>;
}

/** A result's place: which contract, the part (a bundle pointer), and its source line when known. */
export interface ActivePlace {
  kind: "openapi" | "asyncapi";
  pointer: string;
  source?: SourceLine;
}

/**
 * The contracts of a run (the bundled ones unless given) with their source tables, read once; a
 * contract of another digest has none, and its results are placed by pointer alone.
 */
export async function activeContracts(
  documents: { openapi?: unknown; asyncapi?: unknown } = {},
): Promise<ActiveContracts> {
  const openapi = documents.openapi ?? bundledContract();
  const asyncapi = documents.asyncapi ?? bundledAsyncApi;
  const tables = await loadSourceTables();
  const sources: ActiveContracts["sources"] = {};
  const openapiTable = tableOf(tables.openapi, openapi);
  const asyncapiTable = tableOf(tables.asyncapi, asyncapi);
  if (openapiTable) sources.openapi = openapiTable;
  if (asyncapiTable) sources.asyncapi = asyncapiTable;
  return { openapi, asyncapi, sources };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The message a receiver delivery (`channel.event`) is an example of, found by its name in the channel. */
function messagePointer(asyncapi: unknown, operationId: string): string {
  const channels = nodeAt(asyncapi, "/channels");
  if (!isObject(channels)) return "/channels";
  const channel = Object.keys(channels).find((c) => operationId.startsWith(`${c}.`));
  if (channel === undefined) return "/channels";
  const event = operationId.slice(channel.length + 1);
  const at = `/channels/${token(channel)}`;
  const messages = nodeAt(asyncapi, `${at}/messages`);
  const key = isObject(messages)
    ? Object.keys(messages).find((k) => {
        const message = nodeAt(asyncapi, `${at}/messages/${token(k)}`);
        return isObject(message) && message.name === event;
      })
    : undefined;
  return key === undefined ? at : `${at}/messages/${token(key)}`;
}

/** The operation (or path item) of a probe request, as far as the contract writes it. */
function operationPointer(openapi: unknown, r: ActiveResult): string {
  const item = `/paths/${token(r.path)}`;
  const operation = `${item}/${r.method.toLowerCase()}`;
  if (nodeAt(openapi, operation) !== undefined) return operation;
  return nodeAt(openapi, item) !== undefined ? item : "/paths";
}

/** The part of a probe request's operation a finding broke: as `check` places it, or the operation. */
function findingPointer(openapi: unknown, r: ActiveResult, f: ActiveFinding, operation: string): string {
  if (!operation.startsWith("/paths/") || operation.split("/").length !== 4) return operation;
  const entry: EntryResult = {
    index: 0,
    method: r.method,
    path: r.path,
    operationId: r.operationId,
    ...(r.status > 0 ? { status: r.status } : {}),
    ok: r.ok,
    violations: [],
    warnings: [],
  };
  if (Object.hasOwn(CHECK_RULES, f.check)) {
    const finding = f as Finding;
    const part = contractPointer("openapi", entry, finding, openapi);
    return part === undefined ? operation : detailPointer("openapi", openapi, part, entry, finding);
  }
  // An active check on a member of the answer's body (`/error_code`): that member of the response.
  if (f.in === "response.body" && f.pointer !== "" && r.status > 0) {
    const asBody: Finding = {
      in: "response.body",
      check: "response_body_schema",
      pointer: f.pointer,
      message: "",
    };
    return detailPointer("openapi", openapi, `${operation}/responses`, entry, asBody);
  }
  return operation;
}

/** Where a result (or one of its findings) belongs in the contracts. */
export function placeOf(contracts: ActiveContracts, r: ActiveResult, f?: ActiveFinding): ActivePlace {
  let kind: ActivePlace["kind"];
  let pointer: string;
  if (r.path.startsWith("/") && contracts.openapi !== undefined) {
    kind = "openapi";
    const operation = operationPointer(contracts.openapi, r);
    pointer = f ? findingPointer(contracts.openapi, r, f, operation) : operation;
  } else {
    kind = "asyncapi";
    const id = r.operationId ?? "";
    // An awaited event names the AsyncAPI operation it is sent by; a receiver delivery its channel.message.
    const operation = `/operations/${token(id)}`;
    pointer =
      r.path === RECEIVED_EVENT && nodeAt(contracts.asyncapi, operation) !== undefined
        ? operation
        : messagePointer(contracts.asyncapi, id);
  }
  const table = contracts.sources[kind];
  const document = kind === "openapi" ? contracts.openapi : contracts.asyncapi;
  const source = table ? sourceLine(table, document, pointer) : undefined;
  return { kind, pointer, ...(source ? { source } : {}) };
}
