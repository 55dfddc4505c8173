// The contract mock: the service's own rejections in front, Prism's example responses behind.
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { openSchemaCompiler } from "../src/contract/precompiled.js";
import { createSafeServer, listen, queryRecord, type RequestTarget } from "../src/server/index.js";
import type { Answer } from "../src/server/answer.js";
import { type ErrorShape, loadOperations, type Operation, shapeOfPath } from "../src/server/operations.js";
import { type Rejection, rejection } from "../src/server/error-body.js";
import { createPrismEngine, parsePrefer } from "./prism-engine.js";
import type { Credentials } from "../src/server/credentials.js";
import { nodeRequest, sendServed } from "../src/server/node-adapter.js";
import {
  type ContractPipeline,
  type Passed,
  type PipelineRequest,
  runContract,
} from "../src/server/pipeline.js";

export interface MockOptions {
  port?: number;
  host?: string;
  /** The bundled contract; generated/openapi.json beside the mock's own directory by default. */
  spec?: string;
  /**
   * The API key and secret to accept: wrong ones then get the service's 401, as from the sandbox.
   * Without them the mock refuses missing credentials only (it cannot know a wrong one).
   */
  credentials?: Credentials;
  /**
   * Called once per request with `METHOD /route/{template} → status`: the operation's template,
   * never the path as sent, and no query, body, header value or personal data.
   */
  log?: (line: string) => void;
}

export interface RunningMock {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** The contract beside this file's directory: generated/ from mock/, dist/generated/ from dist/mock/. */
const DEFAULT_SPEC = fileURLToPath(new URL("../generated/openapi.json", import.meta.url));

/** The mock's own codes for failures the service's document does not cover. */
function mockCode(shape: ErrorShape, status: number): string {
  if (status >= 500) return shape === "A" ? "SYSTEM" : "MOCK_ERROR";
  if (status === 408) return "REQUEST_TIMEOUT";
  if (status === 431) return "HEADERS_TOO_LARGE";
  return "BAD_REQUEST";
}

/** Whether the contract documents the status and example a Prefer header asks for. */
function preferenceSatisfiable(op: Operation, prefer: string): boolean {
  const wanted = parsePrefer(prefer);
  if (wanted.invalidCode) return false;
  const names = op.examples.get(wanted.code ?? 200);
  return names !== undefined && (wanted.example === undefined || names.includes(wanted.example));
}

/** Why Prism could not answer, in the caller's terms: what the Prefer or Accept header asked for that the contract lacks. */
function preferenceProblem(op: Operation, prefer: string | undefined): Rejection | undefined {
  if (prefer === undefined) return undefined;
  const wanted = parsePrefer(prefer);
  const status = wanted.code ?? 200;
  const statuses = [...op.examples.keys()].sort((a, b) => a - b);
  const names = op.examples.get(status);
  let message: string;
  if (names === undefined || wanted.invalidCode) {
    message = `The mock has no answer for this Prefer header: code must be a documented status (${statuses.join(", ")}).`;
  } else if (wanted.example !== undefined && !names.includes(wanted.example)) {
    message =
      names.length > 0
        ? `The mock has no answer for this Prefer header: the examples of status ${status} are ${names.join(", ")}.`
        : `The mock has no answer for this Prefer header: status ${status} has no named examples.`;
  } else {
    message = `The mock has no answer for this Prefer header: ask for a documented status (${statuses.join(", ")}) and an example name of that response.`;
  }
  return rejection(op.shape, 400, "MOCK_PREFERENCE", message, {});
}

/** Start the mock on a host and port (0 picks a free port). */
export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const spec = options.spec ?? DEFAULT_SPEC;
  const doc = JSON.parse(readFileSync(spec, "utf8"));
  const operations = loadOperations(doc);
  // The validators generated at build time when they match this contract, else ajv compiling on first use.
  const compiler = await openSchemaCompiler(doc);
  const answer = await createPrismEngine(spec);
  const log = options.log ?? (() => {});

  const pipeline: ContractPipeline = {
    operations,
    compiler,
    credentials: () => options.credentials,
    logOtherTemplate: true,
  };

  /** The mock's own answer to a request the contract's checks passed: Prism's example, or why none. */
  async function answerPassed(request: PipelineRequest, passed: Passed): Promise<Answer> {
    const { op, headers, body, value } = passed;
    const path = request.target.pathname;
    const asMethod = request.method === "HEAD" ? "GET" : request.method;
    // Only a JSON body the contract accepted (parsed by checkBody) reaches here; any other body is not Prism's.
    const json = op.body?.mediaType === "application/json" && body.length > 0;
    // Prism sees the body's headers only with the body they describe.
    const bodyHeaders = new Set(json ? [] : ["content-type", "content-length", "transfer-encoding"]);
    const forPrism: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined && !bodyHeaders.has(name)) forPrism[name] = value;
    }
    const ask = (prismHeaders: Record<string, string>) =>
      answer({
        method: asMethod,
        path,
        query: queryRecord(request.target.query),
        headers: prismHeaders,
        body: json ? value : undefined,
      });
    const fromRejection = (r: Rejection): Answer => ({ status: r.status, json: r.body, headers: {} });
    // A code that is no status at all would otherwise read as no code, and get the 200 example.
    if (parsePrefer(headers.prefer).invalidCode) {
      const problem = preferenceProblem(op, headers.prefer);
      if (problem) return fromRejection(problem);
    }
    const out = await ask(forPrism);
    if ("problem" in out) {
      let notAcceptable = out.status === 406;
      const prefer = headers.prefer;
      if (!notAcceptable && prefer !== undefined && preferenceSatisfiable(op, prefer)) {
        // The Prefer names a documented answer, so it is not the fault: ask without it whether the Accept is.
        const withoutPrefer: Record<string, string> = Object.create(null);
        for (const [name, value] of Object.entries(forPrism))
          if (name !== "prefer") withoutPrefer[name] = value;
        const again = await ask(withoutPrefer);
        notAcceptable = "problem" in again && again.status === 406;
      }
      const problem = preferenceProblem(op, prefer);
      if (problem && !notAcceptable) return fromRejection(problem);
      if (notAcceptable) {
        const message = `The Accept header accepts none of this operation's media types: ${op.mediaTypes.join(", ")}.`;
        return fromRejection(rejection(op.shape, 406, "NOT_ACCEPTABLE", message, {}));
      }
      throw new Error("Prism could not answer");
    }
    return { status: out.status, headers: out.headers, bytes: out.body };
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, target: RequestTarget): Promise<void> => {
    const request = nodeRequest(req, target);
    const served = await runContract(pipeline, request, (passed) => answerPassed(request, passed));
    sendServed(res, request.method, served, log);
  };

  const server = createSafeServer(handle, {
    errorBody: (status, message, pathname) => {
      const shape = shapeOfPath(pathname);
      return rejection(shape, status, mockCode(shape, status), message, {}).body;
    },
    // The error's own message may quote the request: only its kind is logged, never sent.
    onError: (kind) => log(`request failed: ${kind}`),
  });
  const listening = await listen(server, options.port ?? 4010, options.host ?? "127.0.0.1");
  return { url: listening.url, server, close: () => listening.close() };
}
