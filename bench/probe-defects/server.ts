// The defect server over node:http: every request read whole (bounded), handed to the defect's
// handler, which forwards it to the sandbox over HTTP; the answer written back as it came.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Defect } from "./defect.js";
import type { ForwardAnswer, ForwardRequest } from "./exchange.js";
import { defectHandler, type Upstream } from "./handler.js";

/** A request body larger than this is refused 413 (the contract's largest, an upload, is under 10 MiB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** An answer larger than this from the sandbox is a 502 (its largest, a title-search zip, is far smaller). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const pairs = (raw: string[], drop: Set<string>): [string, string][] => {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!HOP_BY_HOP.has(name.toLowerCase()) && !drop.has(name.toLowerCase()))
      out.push([name, raw[i + 1] as string]);
  }
  return out;
};

/** The sandbox at a URL as an upstream: one HTTP request per exchange, its answer read whole. */
export function httpUpstream(base: string): Upstream {
  const target = new URL(base);
  return (request) =>
    new Promise<ForwardAnswer>((resolve, reject) => {
      const headers = request.headers.filter(([n]) => !["host", "content-length"].includes(n.toLowerCase()));
      headers.push(["Host", target.host], ["Content-Length", String(request.body.length)]);
      const out = httpRequest({
        hostname: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: headers.flat(),
      });
      out.on("error", reject);
      out.on("response", (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) answer.destroy(new Error("answer over the bound"));
          else chunks.push(c);
        });
        answer.on("error", reject);
        answer.on("end", () =>
          resolve({
            status: answer.statusCode ?? 502,
            headers: pairs(answer.rawHeaders, new Set(["content-length"])),
            body: Buffer.concat(chunks),
          }),
        );
      });
      out.end(request.body);
    });
}

/** A running defect server. */
export interface DefectServer {
  url: string;
  /** How many exchanges the defect changed (its request or its answer). */
  fired: () => number;
  close: () => Promise<void>;
}

/** Serve a defect (none: the clean pass-through) in front of the sandbox at `upstream`. */
export async function startDefectServer(options: {
  upstream: string | Upstream;
  defect: Defect | undefined;
  port?: number;
}): Promise<DefectServer> {
  let fired = 0;
  const upstream = typeof options.upstream === "string" ? httpUpstream(options.upstream) : options.upstream;
  const handle = defectHandler(options.defect, upstream, () => fired++);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on("error", () => res.destroy());
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413, { connection: "close" }).end();
        return;
      }
      const request: ForwardRequest = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: pairs(req.rawHeaders, new Set()),
        body: Buffer.concat(chunks),
      };
      handle(request).then(
        (answer) => {
          const headers = answer.headers.filter(([n]) => n.toLowerCase() !== "content-length");
          headers.push(["Content-Length", String(answer.body.length)]);
          res.writeHead(answer.status, headers.flat());
          res.end(answer.body);
        },
        () => (res.headersSent ? res.destroy() : res.writeHead(502).end()),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fired: () => fired,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
