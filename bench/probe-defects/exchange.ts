// What a defect sees of one exchange: the request as it came (its operation found in the contract,
// its JSON body parsed once) and the sandbox's answer, and the answers a defect sends instead, in
// the contract's own error shapes (src/server's rejection), as a real service's bug would.
import bundled from "../../generated/openapi.json" with { type: "json" };
import type { Json } from "../../src/contract/json.js";
import { rejection, type Nested } from "../../src/server/error-body.js";
import { loadOperations, type Operation, routeOperation } from "../../src/server/operations.js";

/** A request as the defect server received it: the bytes, and its raw header pairs. */
export interface ForwardRequest {
  method: string;
  /** The path and query as sent. */
  url: string;
  headers: [name: string, value: string][];
  body: Buffer;
}

/** An answer: the sandbox's, or the one a defect sends instead. */
export interface ForwardAnswer {
  status: number;
  headers: [name: string, value: string][];
  body: Buffer;
}

/** A request with what a defect reads of it: its operation, path parameters and JSON body. */
export interface SeenRequest extends ForwardRequest {
  /** The contract's operationId, or undefined for a path it does not have (`/_sandbox`, …). */
  operationId: string | undefined;
  op: Operation | undefined;
  /** The path parameters, decoded, in template order. */
  params: string[];
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: Json;
}

const OPERATIONS = loadOperations(bundled as Json);

/** The operation of a method and path (no query), with its parameters. */
export function operationOf(method: string, url: string): { op?: Operation; params: string[] } {
  const path = url.split("?")[0] ?? "";
  const found = routeOperation(OPERATIONS, method.toUpperCase(), path);
  return { op: found.op, params: found.params ?? [] };
}

/** One operation of the contract by its id. */
export function operationById(id: string): Operation {
  const op = OPERATIONS.find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id} in the contract`);
  return op;
}

/** JSON of a body, or undefined: a request or an answer that is not JSON is not a defect's business. */
export function parseJson(body: Buffer): Json {
  if (body.length === 0 || body.length > 8 * 1024 * 1024) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** What a defect reads of a request. */
export function seeRequest(request: ForwardRequest): SeenRequest {
  const { op, params } = operationOf(request.method, request.url);
  return { ...request, op, operationId: op?.operationId, params, json: parseJson(request.body) };
}

/** A header's value (first of its name, case-insensitive). */
export const header = (pairs: [string, string][], name: string): string | undefined =>
  pairs.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

/** A JSON answer of a status. */
export function jsonAnswer(status: number, value: unknown): ForwardAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return {
    status,
    headers: [
      ["content-type", "application/json; charset=utf-8"],
      ["content-length", String(body.length)],
    ],
    body,
  };
}

/** An error answer in an operation's own error shape (v2 shape A or v4 shape B). */
export function errorAnswer(
  request: SeenRequest,
  status: number,
  code: string,
  message: string,
  details?: Nested,
  shape = request.op?.shape ?? "B",
): ForwardAnswer {
  const meta = (request.json as Json)?.metadata ?? {};
  const r = rejection(shape, status, code, message, meta, details);
  return jsonAnswer(r.status, r.body);
}

/** The answer's JSON body with a change made to a copy, the other headers kept. */
export function changedJson(answer: ForwardAnswer, change: (value: Json) => Json): ForwardAnswer {
  const value = parseJson(answer.body);
  const next = jsonAnswer(answer.status, change(structuredClone(value)));
  const kept = answer.headers.filter(([n]) => !["content-length", "content-type"].includes(n.toLowerCase()));
  return { ...next, headers: [...kept, ...next.headers] };
}
