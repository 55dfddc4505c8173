// A static file server for the built docs site (`npm run docs:serve`, `npm start`): one folder,
// 127.0.0.1 only, GET and HEAD, nothing outside the folder, the site's own 404 page, and the API
// reference's client-side routes (`/pep-and-sanctions`, opened in a new tab) sent back to the page.
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { Server } from "node:http";
import { extname, join, normalize, relative, resolve, sep } from "node:path";
import { Readable } from "node:stream";
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

/** Where a site's files are read: the disk, or the assets of a single executable. */
export interface SiteFiles {
  /** The size of the file at an absolute path, or undefined when there is no such file. */
  size(path: string): Promise<number | undefined>;
  /** The file's bytes, as a stream. */
  open(path: string): Readable;
  /** The file's text; rejects when there is no such file. */
  text(path: string): Promise<string>;
}

/** The site's files on disk. */
const DISK: SiteFiles = {
  async size(path) {
    try {
      const found = await stat(path);
      return found.isFile() ? found.size : undefined;
    } catch {
      return undefined;
    }
  },
  open: (path) => createReadStream(path),
  text: (path) => readFile(path, "utf8"),
};

/**
 * A site's files from a lookup by key, the path under `rootDir` with `/` between segments: a
 * single executable's assets, whose folder exists on no disk.
 */
export function filesByKey(rootDir: string, lookup: (key: string) => Buffer | undefined): SiteFiles {
  const root = resolve(rootDir);
  const find = (path: string): Buffer | undefined => lookup(relative(root, path).split(sep).join("/"));
  return {
    size: async (path) => find(path)?.length,
    open: (path) => Readable.from([find(path) ?? Buffer.alloc(0)]),
    async text(path) {
      const bytes = find(path);
      if (!bytes) throw new Error("no such file");
      return bytes.toString("utf8");
    },
  };
}

/** The site's client-side routes, read at each miss so a rebuilt site is served as built. */
async function readRoutes(root: string, files: SiteFiles): Promise<HashRoutes | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await files.text(join(root, ROUTES_FILE)));
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

/**
 * A handler serving one folder under a mount path ("/" or "/docs/"): GET and HEAD, nothing outside
 * the folder; it throws an HttpError for what it refuses. Requests reach it only under the mount.
 * The folder's files are read from disk unless `files` says where else.
 */
export function staticFiles(rootDir: string, mount = "/", files: SiteFiles = DISK): SafeHandler {
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
    const send = async (found: string, size: number, status: number): Promise<void> => {
      response.writeHead(status, {
        "content-type": TYPES.get(extname(found)) ?? "application/octet-stream",
        "content-length": size,
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
      });
      if (request.method === "HEAD") response.end();
      else await pipeline(files.open(found), response);
    };
    const size = await files.size(file);
    if (size !== undefined) return send(file, size, 200);

    const routes = extname(path) === "" ? await readRoutes(root, files) : undefined;
    const first = segments[0];
    if (routes && first !== undefined && routes.prefixes.has(first)) {
      // The fragment keeps the path as sent (already percent-encoded: safe in a Location header).
      response.writeHead(302, { location: `${mount}${routes.page}#${path}`, "content-length": 0 });
      response.end();
      return;
    }
    const notFound = join(root, NOT_FOUND_FILE);
    const notFoundSize = await files.size(notFound);
    if (notFoundSize !== undefined) return send(notFound, notFoundSize, 404);
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
