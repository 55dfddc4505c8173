// A static file server for the built docs site (`npm run docs:serve`, `npm start`): one folder,
// 127.0.0.1 only, GET and HEAD, nothing outside the folder, the site's own 404 page, and the API
// reference's client-side routes (`/pep-and-sanctions`, opened in a new tab) sent back to the page.
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { Server } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { createSafeServer, HttpError, type SafeHandler } from "./handler.js";
import { listen as listenOn } from "./lifecycle.js";
import { decodeSegment } from "./request-target.js";

const TYPES = new Map([
  [".html", "text/html; charset=utf-8"],
  [".css", "text/css; charset=utf-8"],
  [".js", "text/javascript; charset=utf-8"],
  [".json", "application/json; charset=utf-8"],
  [".svg", "image/svg+xml"],
  [".png", "image/png"],
  [".ico", "image/x-icon"],
  [".txt", "text/plain; charset=utf-8"],
]);

/**
 * The file a built site may hold to name its client-side routes: `{ "page": "api.html",
 * "prefixes": ["pep-and-sanctions", …] }`. A missing path whose first segment is a prefix is
 * redirected to `/<page>#<path>`, where the page's router shows it.
 */
export const ROUTES_FILE = "routes.json";

/** The site's "not found" page, answered with status 404 when the site has one. */
export const NOT_FOUND_FILE = "404.html";

export interface RunningServer {
  server: Server;
  /** The site's address, ending in `/`. */
  url: string;
  close: () => Promise<void>;
}

interface HashRoutes {
  page: string;
  prefixes: Set<string>;
}

/** The site's client-side routes, read at each miss so a rebuilt site is served as built. */
async function readRoutes(root: string): Promise<HashRoutes | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(root, ROUTES_FILE), "utf8"));
  } catch {
    return undefined;
  }
  const { page, prefixes } = (parsed ?? {}) as { page?: unknown; prefixes?: unknown };
  if (typeof page !== "string" || !/^[\w.-]+\.html$/.test(page) || !Array.isArray(prefixes)) return undefined;
  return { page, prefixes: new Set(prefixes.filter((p): p is string => typeof p === "string")) };
}

/** The file under root a decoded path names, or undefined when it would leave root. */
function fileUnder(root: string, segments: string[]): string | undefined {
  const file = normalize(join(root, ...segments));
  return file === root || file.startsWith(root + sep) ? file : undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * A handler serving one folder under a mount path ("/" or "/docs/"): GET and HEAD, nothing outside
 * the folder; it throws an HttpError for what it refuses. Requests reach it only under the mount.
 */
export function staticFiles(rootDir: string, mount = "/"): SafeHandler {
  const root = resolve(rootDir);
  return async (request, response, target) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      throw new HttpError(405, "Only GET and HEAD are served.", { allow: "GET, HEAD" });
    }
    const path = target.pathname.startsWith(mount) ? `/${target.pathname.slice(mount.length)}` : "/";
    const segments: string[] = [];
    for (const part of path.split("/").slice(1)) {
      const decoded = decodeSegment(part);
      // A decoded slash, backslash or NUL would smuggle a second path into one segment.
      if (decoded === undefined || /[/\\\0]/.test(decoded)) throw new HttpError(400, "Bad path.");
      segments.push(decoded);
    }
    if (path.endsWith("/")) segments.push("index.html");
    const file = fileUnder(root, segments);
    if (!file) throw new HttpError(403, "Outside the site.");
    const send = async (found: string, status: number): Promise<void> => {
      const { size } = await stat(found);
      response.writeHead(status, {
        "content-type": TYPES.get(extname(found)) ?? "application/octet-stream",
        "content-length": size,
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
      });
      if (request.method === "HEAD") response.end();
      else await pipeline(createReadStream(found), response);
    };
    if (await isFile(file)) return send(file, 200);

    const routes = extname(path) === "" ? await readRoutes(root) : undefined;
    const first = segments[0];
    if (routes && first !== undefined && routes.prefixes.has(first)) {
      // The fragment keeps the path as sent (already percent-encoded: safe in a Location header).
      response.writeHead(302, { location: `${mount}${routes.page}#${path}`, "content-length": 0 });
      response.end();
      return;
    }
    const notFound = join(root, NOT_FOUND_FILE);
    if (await isFile(notFound)) return send(notFound, 404);
    throw new HttpError(404, "Not found.");
  };
}

/** A static file server for one folder: GET and HEAD, nothing outside the folder, never an escaped error. */
export function createStaticServer(rootDir: string): Server {
  return createSafeServer(staticFiles(rootDir), { errorBody: (_status, message) => ({ message }) });
}

/** Serve a folder on 127.0.0.1 (port 0 picks a free one) and say where it listens. */
export async function listen(rootDir: string, port: number): Promise<RunningServer> {
  const server = createStaticServer(rootDir);
  const listening = await listenOn(server, port, "127.0.0.1");
  return { server, url: `${listening.url}/`, close: () => listening.close() };
}
