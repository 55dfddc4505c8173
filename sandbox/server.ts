// The sandbox's HTTP layer on the shared server plumbing (src/server): the service's operations,
// checked as the service checks them (credentials, browser scripts, the contract's schemas), then
// answered from the sandbox's state; the control API under /_sandbox.
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import bundledContract from "../generated/openapi.json" with { type: "json" };
import { openSchemaCompiler } from "../src/contract/precompiled.js";
import {
  checkBody,
  checkHeaders,
  isIntegerSegment,
  readJsonBody,
  tooLarge,
  unrouted,
} from "../src/server/check-request.js";
import { loadOperations, routeOperation, shapeOfPath } from "../src/server/operations.js";
import { type Rejection, rejection } from "../src/server/error-body.js";
import {
  createSafeServer,
  headerRecord,
  type Listening,
  listen,
  queryRecord,
  readBody,
  type RequestTarget,
} from "../src/server/index.js";
import {
  answerControl,
  CONTROL_PREFIX,
  controlError,
  controlOperations,
  describeControlBody,
} from "./control/handlers.js";
import { answerCapture, CAPTURES_PREFIX } from "./products/biometric/captures.js";
import { credentialRefusal } from "../src/server/credentials.js";
import type { Sandbox } from "./sandbox.js";
import { loopRefusal } from "./http/self-address.js";
import { answerService } from "./products/service.js";
import { type Answer, sendAnswer } from "../src/server/answer.js";
import { staticFiles } from "../src/server/static-files.js";

/** Far above the largest upload the service takes (10 MB); a larger body is refused unkept. */
const MAX_SERVICE_BODY = 12 * 1024 * 1024;
/** Control requests are a few members. */
const MAX_CONTROL_BODY = 64 * 1024;
/** Where the docs site of this version is served. */
const DOCS_PREFIX = "/docs/";
/** The docs site the package ships beside the compiled sandbox (dist/site, built by `npm run build`). */
const SHIPPED_SITE = fileURLToPath(new URL("../site/", import.meta.url));

export interface SandboxServerOptions {
  port?: number;
  host?: string;
  /** One line per request: method, route template and status; never a path segment, body or header value. */
  log?: (line: string) => void;
  /**
   * The built docs site to serve under /docs/; by default the one shipped with the package, when
   * there is one (none when the sandbox runs from its TypeScript sources). null serves none.
   */
  docsDir?: string | null;
}

/** The error body of a failure no handler answered (bad target, parser error, a throw). */
function errorBody(status: number, message: string, pathname: string | undefined): unknown {
  if (pathname === "/docs" || pathname?.startsWith(DOCS_PREFIX)) return { message };
  if (pathname?.startsWith(CONTROL_PREFIX)) {
    const code = status === 400 ? "BAD_REQUEST" : status === 413 ? "TOO_LARGE" : "SANDBOX_ERROR";
    return { error_code: code, message };
  }
  const shape = shapeOfPath(pathname);
  const code = status >= 500 ? (shape === "A" ? "SYSTEM" : "SANDBOX_ERROR") : "BAD_REQUEST";
  return rejection(shape, status, code, message, {}).body;
}

const fromRejection = (r: Rejection): Answer => ({ status: r.status, json: r.body });

/** Serve a sandbox over HTTP; resolves once listening. */
export async function serveSandbox(sandbox: Sandbox, options: SandboxServerOptions = {}): Promise<Listening> {
  const operations = loadOperations(bundledContract);
  const compiler = await openSchemaCompiler(bundledContract);
  const log = options.log ?? (() => {});
  const docsDir =
    options.docsDir === undefined
      ? existsSync(`${SHIPPED_SITE}index.html`)
        ? SHIPPED_SITE
        : null
      : options.docsDir;
  const docs = docsDir === null ? undefined : staticFiles(docsDir, DOCS_PREFIX);

  const service = async (
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    method: string,
  ) => {
    const asMethod = method === "HEAD" ? "GET" : method;
    const found = routeOperation(operations, asMethod, target.pathname);
    const reply = (answer: Answer, template = "(no operation)") => {
      sendAnswer(res, method, answer);
      log(`${method} ${template} → ${answer.status}`);
    };
    if (!found.op) {
      const miss = unrouted(found.others, method, target.pathname);
      return reply({ ...fromRejection(miss.rejection), headers: miss.headers });
    }
    const { op, params } = found;
    const headers = headerRecord(req);
    const answer = async (): Promise<Answer> => {
      // Credentials, browser scripts (CRED_AT_RISK) and record ids: the mock's checks, the same rule in both.
      const refused = checkHeaders(op, { headers, params });
      if (refused) return fromRejection(refused);
      const read = await readBody(req, MAX_SERVICE_BODY);
      if (!read.ok) return fromRejection(tooLarge(op));
      const body = read.bytes;
      const wrong = credentialRefusal(sandbox.credentials, op, headers, body);
      if (wrong) return fromRejection(wrong);
      // The mock's checks: the same refusals, in the same words, from both.
      const checked = checkBody(op, { headers, body }, compiler);
      if (checked.rejection) return fromRejection(checked.rejection);
      return answerService(sandbox, {
        op,
        params,
        value: checked.value,
        body,
        contentType: headers["content-type"],
        accept: headers.accept,
        head: method === "HEAD",
      });
    };
    reply(await answer(), op.template);
  };

  const control = async (
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    method: string,
  ) => {
    const found = routeOperation(controlOperations, method, target.pathname);
    const reply = (answer: Answer, template = "/_sandbox (no operation)") => {
      sendAnswer(res, method, answer);
      log(`${method} ${template} → ${answer.status}`);
    };
    if (!found.op) {
      const miss = unrouted(found.others, method, target.pathname);
      return reply({ ...fromRejection(miss.rejection), headers: miss.headers });
    }
    const { op, params } = found;
    if (op.params.some((p, i) => p.integer && !isIntegerSegment(params[i] ?? "")))
      return reply(controlError(404, "NOT_FOUND", "No record has this id."), op.template);
    const read = await readBody(req, MAX_CONTROL_BODY);
    if (!read.ok)
      return reply(controlError(413, "TOO_LARGE", "The request body is larger than 64 KiB."), op.template);
    let value: unknown;
    if (op.body && (read.bytes.length > 0 || op.body.required)) {
      // The same reading as the service's bodies, nested at most 32 deep: control bodies are a few members.
      const decoded = readJsonBody(req.headers["content-type"], read.bytes, 32);
      if (!decoded.ok) return reply(controlError(400, "BAD_REQUEST", decoded.message), op.template);
      value = decoded.value;
      const problem = describeControlBody(op, value);
      if (problem) return reply(controlError(400, "BAD_REQUEST", problem), op.template);
    }
    reply(await answerControl(sandbox, op, params, queryRecord(target.query), value), op.template);
  };

  const server = createSafeServer(
    (req, res, target) => {
      const method = (req.method ?? "GET").toUpperCase();
      // A request the sandbox sent itself came back (a receiver aliased or proxied to it): refused.
      const loop = loopRefusal(req, target.pathname, CONTROL_PREFIX);
      if (loop) {
        sendAnswer(res, method, loop);
        return log(`${method} (sent by a sandbox) → ${loop.status}`);
      }
      if (target.pathname === "/docs" || target.pathname.startsWith(DOCS_PREFIX)) {
        if (!docs)
          return sendAnswer(res, method, controlError(404, "NOT_FOUND", "This sandbox serves no docs site."));
        if (target.pathname === "/docs")
          return sendAnswer(res, method, { status: 301, headers: { location: DOCS_PREFIX } });
        // The route, as for every request: a file name is not logged.
        return Promise.resolve(docs(req, res, target)).then(() =>
          log(`${method} /docs/… → ${res.statusCode}`),
        );
      }
      if (target.pathname === CONTROL_PREFIX || target.pathname.startsWith(`${CONTROL_PREFIX}/`))
        return control(req, res, target, method);
      if (target.pathname.startsWith(`${CAPTURES_PREFIX}/`)) {
        const answer = answerCapture(
          method,
          target.pathname,
          target.query,
          sandbox.clock.now(),
          (id) => (sandbox.biometric.find(id)?.state ?? "archived") !== "archived",
        );
        sendAnswer(res, method, answer);
        // The route, never the path: it names a transaction.
        log(`${method} ${CAPTURES_PREFIX}/{transaction_id}/{file} → ${answer.status}`);
        return;
      }
      return service(req, res, target, method);
    },
    { errorBody, onError: (kind) => log(`request failed: ${kind}`) },
  );
  const listening = await listen(server, options.port ?? 4010, options.host ?? "127.0.0.1");
  sandbox.baseUrl = listening.url;
  sandbox.docsPath = docs ? DOCS_PREFIX : null;
  sandbox.listening = { host: listening.host, port: listening.port };
  return listening;
}
