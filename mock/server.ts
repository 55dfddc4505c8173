// The contract mock: the service's own rejections in front, Prism's example responses behind.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSchemaValidator } from "../src/schema-validator.js";
import { fromRoot } from "../scripts/lib/paths.js";
import { checkRequest } from "./check-request.js";
import { loadMockOperations, type MockOperation } from "./contract-model.js";
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

const MAX_BODY = 20 * 1024 * 1024;

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

function route(operations: MockOperation[], method: string, path: string) {
  for (const op of operations) {
    const match = op.pattern.exec(path);
    if (match && op.method === method) return { op, params: match.slice(1).map(decodeURIComponent) };
  }
  return undefined;
}

/** Start the mock on a host and port (0 picks a free port). */
export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const spec = options.spec ?? fromRoot("generated/openapi.json");
  const { doc, operations } = loadMockOperations();
  const ajv = createSchemaValidator();
  ajv.addSchema(doc, "contract.json");
  const answer = await createPrismEngine(spec);
  const log = options.log ?? (() => {});

  const server = createServer(async (req, res) => {
    const method = (req.method ?? "GET").toUpperCase();
    const url = new URL(req.url ?? "/", "http://mock.invalid");
    const send = (status: number, headers: Record<string, string>, body: Buffer) => {
      res.writeHead(status, { ...headers, "content-length": String(body.length) });
      res.end(body);
      log(`${method} ${url.pathname} → ${status}`);
    };
    const sendRejection = (r: Rejection) =>
      send(r.status, { "content-type": "application/json" }, Buffer.from(JSON.stringify(r.body)));
    try {
      const body = await readBody(req);
      const shape = url.pathname.startsWith("/api/v2/manual_eidv") ? "A" : "B";
      if (body === undefined)
        return sendRejection(rejection(shape, 413, "FILE_SIZE_TOO_BIG", "The request is too large.", {}));
      const found = route(operations, method, url.pathname);
      if (!found)
        return sendRejection(
          rejection(shape, 404, "NOT_FOUND", `No operation ${method} ${url.pathname}.`, {}),
        );
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : v;
      const refused = checkRequest(found.op, { headers, body, params: found.params }, ajv);
      if (refused) return sendRejection(refused);
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of url.searchParams) query[k] = v;
      const isJson = /json/i.test(headers["content-type"] ?? "");
      const out = await answer({
        method,
        path: url.pathname,
        query,
        headers: Object.fromEntries(
          Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
        ),
        body: isJson && body.length > 0 ? JSON.parse(body.toString("utf8")) : undefined,
      });
      if ("problem" in out) {
        // Only a Prefer header asking for something the contract lacks gets here.
        const message = `The mock cannot answer this: ${out.problem}`;
        return sendRejection(
          rejection(found.op.shape, out.status >= 400 ? out.status : 500, "MOCK_PREFERENCE", message, {}),
        );
      }
      send(out.status, out.headers, out.body);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      send(
        500,
        { "content-type": "application/json" },
        Buffer.from(JSON.stringify({ error_code: "MOCK_ERROR", message })),
      );
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
