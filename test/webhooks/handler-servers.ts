// The two forms of createWebhookHandler on loopback servers: the node:http listener as it is, and
// the fetch handler behind a small node:http adapter (Request in, Response out), as a fetch-native
// framework would run it.
import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { WebhookHandler } from "../../src/webhooks/index.js";

export type Form = "node" | "fetch";
export const FORMS: Form[] = ["node", "fetch"];

/** A node:http request as a WHATWG Request, its body streamed. */
function requestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, v);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

/** A node:http listener that hands each request to a fetch handler and writes its Response. */
export function fetchAdapter(handle: (request: Request) => Promise<Response>): RequestListener {
  return (req, res) => {
    void (async () => {
      try {
        const response = await handle(requestOf(req));
        const body = Buffer.from(await response.arrayBuffer());
        res.writeHead(response.status, Object.fromEntries(response.headers)).end(body);
      } catch {
        res.writeHead(502).end();
      }
      // What the handler left unread is drained, so that the connection serves the next request.
      req.resume();
    })();
  };
}

/** A listener routing by path: `routes` maps a path to a handler, anything else is answered 404. */
export function listenerOf(form: Form, routes: Record<string, WebhookHandler>): RequestListener {
  const table = new Map(Object.entries(routes));
  return (req, res) => {
    const handler = table.get((req.url ?? "/").split("?")[0]!);
    if (!handler) return void req.resume().on("end", () => res.writeHead(404).end());
    if (form === "node") return handler.node(req, res);
    return fetchAdapter(handler.fetch)(req, res);
  };
}

/** Start a loopback server; its base URL and a close function. */
export async function serve(
  listener: RequestListener,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
