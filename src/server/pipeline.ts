// The one request pipeline of the servers that speak the service's contract (the mock, the
// sandbox): route → headers → body within one limit → credentials → body check against the
// contract. It knows no transport: a request comes as method, target, headers and a way to read
// the body; what it gives is an Answer and the line to log. The node:http adapter (node-adapter.ts)
// and the fetch adapter (fetch-adapter.ts) carry it to a socket or to a WHATWG Response.
import type { SchemaCompiler } from "../contract/schema-compiler.js";
import type { Answer } from "./answer.js";
import type { BodyRead } from "./body.js";
import { checkBody, checkHeaders, tooLarge, unrouted } from "./check-request.js";
import { type Credentials, credentialRefusal } from "./credentials.js";
import type { Rejection } from "./error-body.js";
import { type Operation, routeOperation } from "./operations.js";
import type { RequestTarget } from "./request-target.js";

/** Far above the largest upload the service takes (10 MB); a larger body is refused unkept (drained, never held). */
export const MAX_SERVICE_BODY = 12 * 1024 * 1024;

/** A request as the pipeline reads it, whatever carried it. */
export interface PipelineRequest {
  /** The method, upper-cased. */
  method: string;
  target: RequestTarget;
  /** Lower-cased header names, repeats joined, in a null-prototype record (the names come from the client). */
  headers: Record<string, string | undefined>;
  /** The body, at most `maxBytes` of it kept: a larger one is read to its end and reported too large. */
  readBody(maxBytes: number): Promise<BodyRead>;
}

/** An answer and the line the server logs for it (a route template, never the path as sent), if any. */
export interface Served {
  answer: Answer;
  line?: string;
}

/** What passed every check: the operation, its path parameters, the headers and the body (parsed when JSON). */
export interface Passed {
  op: Operation;
  params: string[];
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** The JSON value of an accepted, non-empty JSON body; undefined for any other body. */
  value: unknown;
}

export interface ContractPipeline {
  operations: Operation[];
  compiler: SchemaCompiler;
  /** The credentials to accept; undefined refuses missing ones only (the operation's security headers). */
  credentials: () => Credentials | undefined;
  /**
   * The template logged for a path no operation of the method answers: the first operation of
   * the path under another method (the mock), or none (the sandbox).
   */
  logOtherTemplate?: boolean;
}

/** An Answer from one of the service's refusals. */
export const fromRejection = (r: Rejection, headers?: Record<string, string>): Answer =>
  headers === undefined ? { status: r.status, json: r.body } : { status: r.status, json: r.body, headers };

/**
 * Run a request through the contract's checks; `answer` answers what passed them. A throw of
 * `answer` (or of reading the body) rejects: the adapter answers it in the service's error shape.
 */
export async function runContract(
  pipeline: ContractPipeline,
  request: PipelineRequest,
  answer: (passed: Passed) => Answer | Promise<Answer>,
): Promise<Served> {
  const { method, target } = request;
  // HEAD is GET without the body, as HTTP has it.
  const asMethod = method === "HEAD" ? "GET" : method;
  const found = routeOperation(pipeline.operations, asMethod, target.pathname);
  if (!found.op) {
    const template = (pipeline.logOtherTemplate ? found.others[0]?.template : undefined) ?? "(no operation)";
    const miss = unrouted(found.others, method, target.pathname);
    return served(method, template, fromRejection(miss.rejection, miss.headers));
  }
  const { op, params } = found;
  const headers = request.headers;
  const checked = async (): Promise<Answer> => {
    // Credentials, browser scripts (CRED_AT_RISK) and record ids, before any body is read.
    const refused = checkHeaders(op, { headers, params });
    if (refused) return fromRejection(refused);
    const read = await request.readBody(MAX_SERVICE_BODY);
    if (!read.ok) return fromRejection(tooLarge(op));
    const body = read.bytes;
    const credentials = pipeline.credentials();
    const wrong = credentials && credentialRefusal(credentials, op, headers, body);
    if (wrong) return fromRejection(wrong);
    const bodyCheck = checkBody(op, { headers, body }, pipeline.compiler);
    if (bodyCheck.rejection) return fromRejection(bodyCheck.rejection);
    return answer({ op, params, headers, body, value: bodyCheck.value });
  };
  return served(method, op.template, await checked());
}

/** An answer with its log line: method, route template, status. */
export const served = (method: string, template: string, answer: Answer): Served => ({
  answer,
  line: `${method} ${template} → ${answer.status}`,
});
