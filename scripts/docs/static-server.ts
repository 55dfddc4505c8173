import { readFile, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

export interface RunningServer {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

/** A static file server for one folder, on 127.0.0.1 only; GET and HEAD, nothing outside the folder. */
function createStaticServer(rootDir: string): Server {
  const root = resolve(rootDir);
  return createServer(async (request, response) => {
    const send = (status: number, text: string): void => {
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${text}\n`);
    };
    if (request.method !== "GET" && request.method !== "HEAD")
      return send(405, "Only GET and HEAD are served.");
    let path: string;
    try {
      path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    } catch {
      return send(400, "Bad path.");
    }
    const file = normalize(join(root, path.endsWith("/") ? `${path}index.html` : path));
    if (file !== root && !file.startsWith(root + sep)) return send(403, "Outside the site.");
    try {
      if (!(await stat(file)).isFile()) return send(404, "Not found.");
      const body = await readFile(file);
      response.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "content-length": body.length,
        "cache-control": "no-cache",
      });
      response.end(request.method === "HEAD" ? undefined : body);
    } catch {
      send(404, "Not found.");
    }
  });
}

/** Start a static server on 127.0.0.1 (port 0 picks a free one) and say where it listens. */
export function listen(rootDir: string, port: number): Promise<RunningServer> {
  const server = createStaticServer(rootDir);
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port: actual } = server.address() as AddressInfo;
      resolvePromise({
        server,
        url: `http://127.0.0.1:${actual}/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
