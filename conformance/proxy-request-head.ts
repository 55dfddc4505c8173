// What the proxy refuses of a request's head before forwarding anything: a request it could not pass
// on as the client sent it gets a 4xx in the service's error shape, and the connection is closed.
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { plainFraming } from "./proxy-framing.js";

/**
 * Request headers the proxy reads. Node keeps 1,000 by default and drops the rest without a word, so
 * the proxy's server keeps one more (see `countHeaders`) to tell a request that had more.
 */
export const MAX_REQUEST_HEADERS = 1000;

/** A refusal: the status and the message the client gets. */
export interface Refusal {
  status: number;
  message: string;
}

/** Let the proxy's handler see what Node would refuse or drop with a bare answer of its own. */
export function countHeaders(server: Server): void {
  server.maxHeadersCount = MAX_REQUEST_HEADERS + 1;
  // Node answers a missing Host with a bare 400 before any handler runs; `refusalOf` answers it instead.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}

/** Why the proxy will not forward this request, or undefined when it will. */
export function refusalOf(req: IncomingMessage): Refusal | undefined {
  const raw = req.rawHeaders;
  if (raw.length / 2 > MAX_REQUEST_HEADERS)
    return { status: 431, message: `The request has more than ${MAX_REQUEST_HEADERS} headers.` };
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === "host") hosts++;
  // RFC 9112 §3.2: an HTTP/1.1 request with no Host, or more than one, is answered 400.
  if (hosts > 1 || (hosts === 0 && req.httpVersion === "1.1"))
    return { status: 400, message: "The request must have one Host header." };
  const expect = req.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== "100-continue")
    return { status: 417, message: "The only expectation the proxy meets is 100-continue." };
  if (!plainFraming(raw))
    return { status: 400, message: "The request's transfer coding is not one the proxy passes on." };
  return undefined;
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
