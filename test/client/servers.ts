// Real loopback servers for the client's tests: each on its own port, so that two of them are two
// origins. Every request is recorded with its exact headers and body bytes.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as a server received it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Answers one received request (its body already read). */
export type Handler = (request: Received, res: ServerResponse, req: IncomingMessage) => void;

/** A running loopback server that records every request. */
export interface LoopbackServer {
  /** http://127.0.0.1:port */
  origin: string;
  port: number;
  received: Received[];
  handle: Handler;
  close(): Promise<void>;
}

/** Start a server on a free loopback port; `handle` may be replaced between tests. */
export async function startServer(handle: Handler): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      self.received.push(request);
      self.handle(request, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const self: LoopbackServer = {
    origin: `http://127.0.0.1:${port}`,
    port,
    received: [],
    handle,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return self;
}

/** Answer with a small JSON body. */
export const json = (res: ServerResponse, value: unknown, status = 200): void => {
  const text = JSON.stringify(value);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
};

/** The credential headers of either scheme, as Node spells received header names. */
export const CREDENTIAL_HEADERS = ["svc-api-key", "svc-secret", "svc-date", "svc-signature"] as const;
