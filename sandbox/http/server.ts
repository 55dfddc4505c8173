// The sandbox over HTTP: the shared server plumbing of src/server (safe handler, listening) around
// the sandbox's answers (app.ts), and the docs site of this version served from its files.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createSafeServer, type Listening, listen } from "../../src/server/index.js";
import { nodeRequest, sendServed } from "../../src/server/node-adapter.js";
import { filesByKey, staticFiles } from "../../src/server/static-files.js";
import type { SafeHandler } from "../../src/server/handler.js";
import { bundleRoot, executableAsset, inSingleExecutable } from "../../src/single-executable.js";
import { DOCS_PREFIX, errorBody, sandboxApp } from "./app.js";
import type { Sandbox } from "../sandbox.js";

/** The docs site the package ships beside the compiled sandbox (dist/site, built by `npm run build`). */
const SHIPPED_SITE = fileURLToPath(new URL("../../site/", import.meta.url));

/** The docs site shipped with this sandbox: dist/site beside it, or a single executable's `site/` assets. */
function shippedDocs(): SafeHandler | undefined {
  if (inSingleExecutable()) {
    if (!executableAsset("site/index.html")) return undefined;
    const root = fileURLToPath(new URL("site/", bundleRoot()));
    return staticFiles(
      root,
      DOCS_PREFIX,
      filesByKey(root, (key) => executableAsset(`site/${key}`)),
    );
  }
  return existsSync(`${SHIPPED_SITE}index.html`) ? staticFiles(SHIPPED_SITE, DOCS_PREFIX) : undefined;
}

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

/** Serve a sandbox over HTTP; resolves once listening. */
export async function serveSandbox(sandbox: Sandbox, options: SandboxServerOptions = {}): Promise<Listening> {
  const log = options.log ?? (() => {});
  const docs =
    options.docsDir === undefined
      ? shippedDocs()
      : options.docsDir === null
        ? undefined
        : staticFiles(options.docsDir, DOCS_PREFIX);
  const app = await sandboxApp(sandbox, docs !== undefined);
  const server = createSafeServer(
    async (req, res, target) => {
      const request = nodeRequest(req, target);
      // The docs site's files, streamed from disk; the route is logged, as for every request: a file name is not.
      if (docs && target.pathname.startsWith(DOCS_PREFIX) && !app.sentBySandbox(request)) {
        await docs(req, res, target);
        return log(`${request.method} /docs/… → ${res.statusCode}`);
      }
      sendServed(res, request.method, await app.answer(request), log);
    },
    { errorBody, onError: (kind) => log(`request failed: ${kind}`) },
  );
  const listening = await listen(server, options.port ?? 4010, options.host ?? "127.0.0.1");
  sandbox.baseUrl = listening.url;
  sandbox.docsPath = docs ? DOCS_PREFIX : null;
  sandbox.listening = { host: listening.host, port: listening.port };
  return listening;
}
