// The contract mock: the service's own rejections in front, Prism's example responses behind.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SchemaCompiler } from "../conformance/contract-model.js";
import { loadPrecompiled } from "../conformance/precompiled.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { checkBody, checkHeaders, tooLarge } from "./check-request.js";
import { type ErrorShape, loadMockOperations, type MockOperation } from "./contract-model.js";
import { type Rejection, rejection } from "./error-body.js";
import { createPrismEngine } from "./prism-engine.js";

export interface MockOptions {
  port?: number;
  host?: string;
  /** The bundled contract; generated/openapi.json by default. */
  spec?: string;
  /** Called once per request with a line that carries no body, header value or personal data. */
  log?: (line: string) => void;
}

export interface RunningMock {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Far above the largest upload the service takes (10 MB); a larger body is refused unread. */
const MAX_BODY = 12 * 1024 * 1024;

/** The body, or undefined when it is larger than MAX_BODY (the rest is drained, not kept). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** A path parameter, or undefined when its percent-encoding is broken. */
function decodeParam(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** The operation for a method and path, and the operations of the path under other methods. */
function route(operations: MockOperation[], method: string, path: string) {
  const others: MockOperation[] = [];
  for (const op of operations) {
    const match = op.pattern.exec(path);
    if (!match) continue;
    const params = match.slice(1).map(decodeParam);
    if (params.some((p) => p === undefined)) continue;
    if (op.method === method) return { op, params: params as string[], others };
    others.push(op);
  }
  return { others };
}

/** The shape of a path no operation answers: the shape of its product (shape A for manual verification). */
const shapeOfPath = (path: string): ErrorShape => (path.startsWith("/api/v2/manual_eidv") ? "A" : "B");

/** Start the mock on a host and port (0 picks a free port). */
export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const spec = options.spec ?? fromRoot("generated/openapi.json");
  const doc = JSON.parse(readFileSync(spec, "utf8"));
  const operations = loadMockOperations(doc);
  // The validators generated at build time when they match this contract, else ajv compiling on first use.
  const compiler: SchemaCompiler =
    (await loadPrecompiled(doc)) ?? new (await import("../conformance/ajv-compiler.js")).AjvCompiler(doc);
  const answer = await createPrismEngine(spec);
  const log = options.log ?? (() => {});

  const server = createServer(async (req, res) => {
    const method = (req.method ?? "GET").toUpperCase();
    // HEAD is GET without the body, as HTTP has it.
    const asMethod = method === "HEAD" ? "GET" : method;
    const url = new URL(req.url ?? "/", "http://mock.invalid");
    const send = (status: number, headers: Record<string, string>, body: Buffer) => {
      res.writeHead(status, { ...headers, "content-length": String(body.length) });
      res.end(method === "HEAD" ? undefined : body);
      log(`${method} ${url.pathname} → ${status}`);
    };
    const sendRejection = (r: Rejection, headers: Record<string, string> = {}) =>
      send(r.status, { ...headers, "content-type": "application/json" }, Buffer.from(JSON.stringify(r.body)));
    let shape = shapeOfPath(url.pathname);
    try {
      const found = route(operations, asMethod, url.pathname);
      if (!found.op) {
        if (found.others.length > 0) {
          const allow = found.others.map((o) => o.method).join(", ");
          const message = `${method} is not allowed on this path; use ${allow}.`;
          return sendRejection(
            rejection(found.others[0]?.shape ?? shape, 405, "METHOD_NOT_ALLOWED", message, {}),
            {
              allow,
            },
          );
        }
        return sendRejection(
          rejection(shape, 404, "NOT_FOUND", `No operation ${method} ${url.pathname}.`, {}),
        );
      }
      const { op, params } = found;
      shape = op.shape;
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v;
      const refused = checkHeaders(op, { headers, params });
      if (refused) return sendRejection(refused);
      const body = await readBody(req);
      if (body === undefined) return sendRejection(tooLarge(op));
      const checked = checkBody(op, { headers, body }, compiler);
      if (checked.rejection) return sendRejection(checked.rejection);

      const query: Record<string, string | string[]> = {};
      for (const [k, v] of url.searchParams) query[k] = v;
      // Only a JSON body the contract accepted (parsed by checkBody) reaches here; any other body is not Prism's.
      const json = op.body?.mediaType === "application/json" && body.length > 0;
      // Prism sees the body's headers only with the body they describe.
      const bodyHeaders = new Set(json ? [] : ["content-type", "content-length", "transfer-encoding"]);
      const out = await answer({
        method: asMethod,
        path: url.pathname,
        query,
        headers: Object.fromEntries(
          Object.entries(headers).filter(
            (e): e is [string, string] => e[1] !== undefined && !bodyHeaders.has(e[0]),
          ),
        ),
        body: json ? checked.value : undefined,
      });
      if ("problem" in out) {
        // Only a Prefer header asking for what the contract lacks gets here: a mock-only misuse.
        const codes = [...op.errors.keys(), 200].sort().join(", ");
        const message = `The mock has no answer for this Prefer header: ask for a documented status (${codes}) and an example name of that response.`;
        return sendRejection(rejection(op.shape, 400, "MOCK_PREFERENCE", message, {}));
      }
      send(out.status, out.headers, out.body);
    } catch (error) {
      // The error's own message may quote the request: only its kind is logged, never sent.
      log(`${method} ${url.pathname} failed: ${(error as Error)?.name ?? "error"}`);
      const code = shape === "A" ? "SYSTEM" : "MOCK_ERROR";
      sendRejection(rejection(shape, 500, code, "The mock failed to answer this request.", {}));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 4010, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
