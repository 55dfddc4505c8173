// A service on a raw socket that reads what the proxy sends with a strict HTTP/1.1 request parser
// of its own (Content-Length, or chunked; neither means no body), records every request it finds on
// each connection, and answers each one. A body the proxy sent unframed is read as a request of its
// own, or as bytes no request explains: either shows up in what it recorded.
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { startProxy } from "../../../conformance/proxy/proxy.js";
import type { ConformanceChecker } from "../../../conformance/run/open-checker.js";

/** One request as the service read it. */
export interface SeenRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body: Buffer;
}

/** What one request's head says of its body, or a framing no server may read. */
function bodyFraming(headers: [string, string][]): "chunked" | number | "ambiguous" {
  const lengths = headers.filter(([n]) => n.toLowerCase() === "content-length").map(([, v]) => v.trim());
  const codings = headers.filter(([n]) => n.toLowerCase() === "transfer-encoding").map(([, v]) => v.trim());
  if (codings.length > 0)
    return lengths.length > 0 || codings.join(",").toLowerCase() !== "chunked" ? "ambiguous" : "chunked";
  if (lengths.length > 1) return "ambiguous";
  if (lengths.length === 0) return 0;
  return /^\d+$/.test(lengths[0] as string) ? Number(lengths[0]) : "ambiguous";
}

/** The requests whole at the start of `buffer`, and where the rest begins; `error` when it is not HTTP. */
export function parseRequests(buffer: Buffer): { requests: SeenRequest[]; used: number; error?: string } {
  const requests: SeenRequest[] = [];
  let at = 0;
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n", at, "latin1");
    if (end < 0) return { requests, used: at };
    const [line = "", ...fields] = buffer.toString("latin1", at, end).split("\r\n");
    const parts = /^([A-Z]+) (\S+) HTTP\/1\.1$/.exec(line);
    if (!parts)
      return { requests, used: at, error: `not a request line: ${JSON.stringify(line.slice(0, 80))}` };
    const headers: [string, string][] = [];
    for (const field of fields) {
      const colon = field.indexOf(":");
      if (colon <= 0)
        return { requests, used: at, error: `not a header: ${JSON.stringify(field.slice(0, 80))}` };
      headers.push([field.slice(0, colon), field.slice(colon + 1).trim()]);
    }
    const framing = bodyFraming(headers);
    if (framing === "ambiguous") return { requests, used: at, error: "ambiguous framing" };
    let next = end + 4;
    let body: Buffer;
    if (framing === "chunked") {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = buffer.indexOf("\r\n", next, "latin1");
        if (lineEnd < 0) return { requests, used: at };
        const size = Number.parseInt(buffer.toString("latin1", next, lineEnd).split(";")[0] as string, 16);
        if (!Number.isInteger(size) || size < 0) return { requests, used: at, error: "bad chunk size" };
        if (buffer.length < lineEnd + 2 + size + 2) return { requests, used: at };
        chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        next = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
    } else {
      if (buffer.length < next + framing) return { requests, used: at };
      body = buffer.subarray(next, next + framing);
      next += framing;
    }
    requests.push({ method: parts[1] as string, target: parts[2] as string, headers, body });
    at = next;
  }
}

/** A raw service on loopback: `seen` holds every request read, `errors` what was not HTTP. */
export async function startRawUpstream(): Promise<{
  port: number;
  server: Server;
  seen: SeenRequest[];
  errors: string[];
  reset(): void;
}> {
  const state = { seen: [] as SeenRequest[], errors: [] as string[] };
  const server = createServer((socket: Socket) => {
    let pending = Buffer.alloc(0);
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const read = parseRequests(pending);
      pending = pending.subarray(read.used);
      for (const request of read.requests) {
        state.seen.push(request);
        const body = request.method === "HEAD" ? "" : "ok";
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\n${body}`);
      }
      if (read.error) {
        state.errors.push(read.error);
        socket.destroy();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as { port: number }).port,
    server,
    get seen() {
      return state.seen;
    },
    get errors() {
      return state.errors;
    },
    reset() {
      state.seen = [];
      state.errors = [];
    },
  };
}

/**
 * The statuses of the answers in a raw byte stream from the proxy, in order; `methods` are the
 * requests' (an answer to HEAD has no body, whatever its Content-Length says).
 */
export function answerStatuses(raw: string, methods: string[]): number[] {
  const statuses: number[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const head = raw.slice(at, end);
    const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
    if (!status) break;
    // An interim answer (100 Continue) has no body and is not the request's answer.
    if (/^1\d\d$/.test(status) && status !== "101") {
      at = end + 4;
      continue;
    }
    statuses.push(Number(status));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    const method = methods[statuses.length - 1];
    at = end + 4 + (method === "HEAD" ? 0 : Number(length ?? 0));
  }
  return statuses;
}

/**
 * Send raw bytes to the proxy and read its answers until there are as many as `methods` (one per
 * request sent), the proxy closes the connection, or `timeoutMs` passes: no wait on a quiet period,
 * so a slow machine cannot cut an answer off.
 */
export function sendAndRead(
  port: number,
  bytes: string | Uint8Array,
  methods: string[],
  timeoutMs = 10_000,
): Promise<{ raw: string; statuses: number[] }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ port, host: "127.0.0.1" });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString("latin1");
      resolve({ raw, statuses: answerStatuses(raw, methods) });
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const raw = Buffer.concat(chunks).toString("latin1");
      if (complete(raw, methods)) done();
    });
    socket.on("close", done);
    socket.on("error", done);
  });
}

/** Whether `raw` holds as many whole answers as `methods`, the last one's body included. */
function complete(raw: string, methods: string[]): boolean {
  let at = 0;
  for (const method of methods) {
    let end = raw.indexOf("\r\n\r\n", at);
    // Interim answers (100 Continue) come before the request's own.
    while (end >= 0 && /^HTTP\/1\.1 1(?!01)\d\d/.test(raw.slice(at, end))) {
      at = end + 4;
      end = raw.indexOf("\r\n\r\n", at);
    }
    if (end < 0) return false;
    const head = raw.slice(at, end);
    if (!/^HTTP\/1\.1 \d{3}/.test(head)) return false;
    const length = method === "HEAD" ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (raw.length < end + 4 + length) return false;
    at = end + 4 + length;
  }
  return true;
}

/** A raw upstream and a proxy before it that checks nothing: what crosses the proxy, byte for byte. */
export async function startProxyOverRawUpstream(): Promise<{
  upstream: Awaited<ReturnType<typeof startRawUpstream>>;
  port: number;
  close: () => Promise<void>;
}> {
  const upstream = await startRawUpstream();
  const proxy = await startProxy({
    upstream: new URL(`http://127.0.0.1:${upstream.port}`),
    checker: { checkExchange: () => undefined } as unknown as ConformanceChecker,
    port: 0,
  });
  return {
    upstream,
    port: Number(new URL(proxy.url).port),
    close: async () => {
      await proxy.close();
      upstream.server.close();
    },
  };
}
