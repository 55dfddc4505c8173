// What the proxy refuses of a request beyond what every server refuses (src/server's headRefusal: no
// Host or two, over 1,000 headers, an Expect other than 100-continue): a framing it cannot pass on,
// and CONNECT. Each gets a 4xx in the service's error shape, and the connection is closed.
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { HttpError } from "../../src/server/index.js";
import { plainFraming } from "./framing.js";

/**
 * Throws an HttpError (400, connection closed) when the request's framing cannot be passed on: a
 * Transfer-Encoding other than `chunked` alone would reach the service with a coding named nowhere.
 */
export function refuseFraming(req: IncomingMessage): void {
  if (!plainFraming(req.rawHeaders))
    throw new HttpError(400, "The request's transfer coding is not one the proxy passes on.", {
      connection: "close",
    });
}

/**
 * Answer CONNECT with 405 in the service's error shape (`errorBody`), connection closed: the proxy
 * forwards requests, it opens no tunnels, and Node would close the connection without a word.
 */
export function refuseTunnels(server: Server, errorBody: (status: number, message: string) => unknown): void {
  if (server.listenerCount("connect") > 0) return;
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => socket.destroy());
    try {
      const body = JSON.stringify(errorBody(405, "The proxy opens no tunnels: CONNECT is not allowed."));
      socket.end(
        `HTTP/1.1 405 ${STATUS_CODES[405]}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nallow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n` +
          `connection: close\r\n\r\n${body}`,
      );
    } catch {
      socket.destroy();
    }
  });
}
