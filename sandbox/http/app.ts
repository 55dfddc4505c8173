// The sandbox's answers, whatever carries the request (the HTTP server in server.ts, the in-process
// fetch of createSandbox): the service's operations through the one request pipeline of src/server,
// then answered from the sandbox's state; the control API under /_sandbox; the captures' files.
import bundledContract from "../../generated/openapi.json" with { type: "json" };
import { openSchemaCompiler } from "../../src/contract/precompiled.js";
import type { Answer } from "../../src/server/answer.js";
import { isIntegerSegment, readJsonBody, unrouted } from "../../src/server/check-request.js";
import { rejection } from "../../src/server/error-body.js";
import { loadOperations, routeOperation, shapeOfPath } from "../../src/server/operations.js";
import {
  type ContractPipeline,
  fromRejection,
  type PipelineRequest,
  runContract,
  type Served,
  served,
} from "../../src/server/pipeline.js";
import { queryRecord } from "../../src/server/request-target.js";
import { answerCapture, CAPTURES_PREFIX } from "../products/biometric/captures.js";
import {
  answerControl,
  CONTROL_PREFIX,
  controlError,
  controlOperations,
  describeControlBody,
} from "../control/handlers.js";
import type { Sandbox } from "../sandbox.js";
import { loopRefusal } from "./self-address.js";
import { answerService } from "../products/service.js";

/** Control requests are a few members. */
const MAX_CONTROL_BODY = 64 * 1024;
/** Where the docs site of this version is served. */
export const DOCS_PREFIX = "/docs/";

/** Whether a path is the docs site's. */
export const isDocsPath = (pathname: string): boolean =>
  pathname === "/docs" || pathname.startsWith(DOCS_PREFIX);

/** The error body of a failure no handler answered (bad target, parser error, a throw). */
export function errorBody(status: number, message: string, pathname: string | undefined): unknown {
  if (pathname !== undefined && isDocsPath(pathname)) return { message };
  if (pathname?.startsWith(CONTROL_PREFIX)) {
    const code = status === 400 ? "BAD_REQUEST" : status === 413 ? "TOO_LARGE" : "SANDBOX_ERROR";
    return { error_code: code, message };
  }
  const shape = shapeOfPath(pathname);
  const code = status >= 500 ? (shape === "A" ? "SYSTEM" : "SANDBOX_ERROR") : "BAD_REQUEST";
  return rejection(shape, status, code, message, {}).body;
}

/** A request of the control API: routed, its record ids and body checked, then answered. */
async function answerControlRequest(sandbox: Sandbox, request: PipelineRequest): Promise<Served> {
  const { method, target } = request;
  const found = routeOperation(controlOperations, method, target.pathname);
  if (!found.op) {
    const miss = unrouted(found.others, method, target.pathname);
    return served(method, "/_sandbox (no operation)", fromRejection(miss.rejection, miss.headers));
  }
  const { op, params } = found;
  const reply = (answer: Answer) => served(method, op.template, answer);
  if (op.params.some((p, i) => p.integer && !isIntegerSegment(params[i] ?? "")))
    return reply(controlError(404, "NOT_FOUND", "No record has this id."));
  const read = await request.readBody(MAX_CONTROL_BODY);
  if (!read.ok) return reply(controlError(413, "TOO_LARGE", "The request body is larger than 64 KiB."));
  let value: unknown;
  if (op.body && (read.bytes.length > 0 || op.body.required)) {
    // The same reading as the service's bodies, nested at most 32 deep: control bodies are a few members.
    const decoded = readJsonBody(request.headers["content-type"], read.bytes, 32);
    if (!decoded.ok) return reply(controlError(400, "BAD_REQUEST", decoded.message));
    value = decoded.value;
    const problem = describeControlBody(op, value);
    if (problem) return reply(controlError(400, "BAD_REQUEST", problem));
  }
  return reply(await answerControl(sandbox, op, params, queryRecord(target.query), value));
}

/** A capture's file: the route is logged, never the path (it names a transaction). */
function answerCaptureRequest(sandbox: Sandbox, request: PipelineRequest): Served {
  const { method, target } = request;
  const answer = answerCapture(
    method,
    target.pathname,
    target.query,
    sandbox.clock.now(),
    (id) => (sandbox.biometric.find(id)?.state ?? "archived") !== "archived",
  );
  return served(method, `${CAPTURES_PREFIX}/{transaction_id}/{file}`, answer);
}

/**
 * The addresses a person opens first: `/` (the first URL the banner prints) and `/_sandbox/`. `/` is
 * no operation of the contract; a browser is sent to the docs site when there is one, anything else
 * gets where things are. `/_sandbox/` is the control API's index, at its one address.
 */
function landingAnswer(request: PipelineRequest, docs: boolean): Served | undefined {
  const { method, target } = request;
  if (method !== "GET" && method !== "HEAD") return undefined;
  if (target.pathname === `${CONTROL_PREFIX}/`)
    return {
      answer: { status: 301, headers: { location: CONTROL_PREFIX } },
      line: `${method} /_sandbox/ → 301`,
    };
  if (target.pathname !== "/") return undefined;
  const browser = /\btext\/html\b/.test(request.headers.accept ?? "");
  const answer: Answer =
    browser && docs
      ? { status: 302, headers: { location: DOCS_PREFIX } }
      : {
          status: 200,
          json: {
            message:
              "The identity-verification sandbox: the service's operations under /api/, the control API at /_sandbox.",
            control: CONTROL_PREFIX,
            docs: docs ? DOCS_PREFIX : null,
          },
        };
  return { answer, line: `${method} / → ${answer.status}` };
}

/** The sandbox's answers, and the one check that comes before the docs site's files. */
export interface SandboxApp {
  /** Answer a request: a loop refused, the control API, captures, the service (and /docs when no site is served). */
  answer(request: PipelineRequest): Promise<Served>;
  /** Whether the request was sent by a sandbox (answered 508 on every route, the docs site's too). */
  sentBySandbox(request: PipelineRequest): boolean;
}

/** The service's operations and schema compiler, made once per process (see serviceContract). */
let contractFacts: Promise<Pick<ContractPipeline, "operations" | "compiler">> | undefined;

/**
 * The service's operations and schema compiler: facts of the bundled contract alone, the same for
 * every sandbox, so made by the first and shared (checking the build-time validators against the
 * contract hashes the whole contract). A failure is not kept: the next sandbox tries again.
 */
function serviceContract(): Promise<Pick<ContractPipeline, "operations" | "compiler">> {
  contractFacts ??= openSchemaCompiler(bundledContract).then(
    (compiler) => ({ operations: loadOperations(bundledContract), compiler }),
    (error: unknown) => {
      contractFacts = undefined;
      throw error;
    },
  );
  return contractFacts;
}

/**
 * The sandbox's answers to every request but the docs site's files (which the HTTP server serves
 * from disk; `docs` says whether it does: then /docs redirects to /docs/, else it is a 404).
 */
export async function sandboxApp(sandbox: Sandbox, docs: boolean): Promise<SandboxApp> {
  const pipeline: ContractPipeline = {
    ...(await serviceContract()),
    credentials: () => sandbox.credentials,
  };
  const sentBySandbox = (request: PipelineRequest) =>
    loopRefusal(request, request.target.pathname, CONTROL_PREFIX) !== undefined;
  const answer = async (request: PipelineRequest): Promise<Served> => {
    const { method, target } = request;
    // A request the sandbox sent itself came back (a receiver aliased or proxied to it): refused.
    const loop = loopRefusal(request, target.pathname, CONTROL_PREFIX);
    if (loop) return { answer: loop, line: `${method} (sent by a sandbox) → ${loop.status}` };
    if (isDocsPath(target.pathname)) {
      const answer: Answer = !docs
        ? controlError(404, "NOT_FOUND", "This sandbox serves no docs site.")
        : { status: 301, headers: { location: DOCS_PREFIX } };
      // No line: the docs site's answers are logged only when a file is served.
      return { answer };
    }
    const landing = landingAnswer(request, docs);
    if (landing) return landing;
    if (target.pathname === CONTROL_PREFIX || target.pathname.startsWith(`${CONTROL_PREFIX}/`))
      return answerControlRequest(sandbox, request);
    if (target.pathname.startsWith(`${CAPTURES_PREFIX}/`)) return answerCaptureRequest(sandbox, request);
    return runContract(pipeline, request, ({ op, params, value, body, headers }) =>
      answerService(sandbox, {
        op,
        params,
        value,
        body,
        contentType: headers["content-type"],
        accept: headers.accept,
        head: method === "HEAD",
      }),
    );
  };
  return { answer, sentBySandbox };
}
