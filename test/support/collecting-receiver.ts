// A webhook receiver for tests: a loopback node:http server that keeps every request it gets, in
// order, and lets a test wait for the Nth one (a promise, never a poll).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the receiver got it, its body read whole. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When its body had arrived (ms since the epoch). */
  at: number;
}

/** Answers a request once its body is read (it may answer later, or never). */
export type Answer = (request: Received, res: ServerResponse) => void;

/** How long `arrived` waits by default: generous, for a loaded machine. */
export const ARRIVAL_TIMEOUT_MS = 15_000;

/** A running collecting receiver. */
export interface CollectingReceiver {
  /** http://127.0.0.1:port */
  url: string;
  /** Every request so far, in order of arrival (a test may empty it between cases). */
  received: Received[];
  /**
   * Resolves with `received` once it holds `count` requests; rejects after `timeoutMs`, or when the
   * receiver closes first, saying how many arrived.
   */
  arrived(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Answer 200 with no body. */
const ok: Answer = (_, res) => void res.writeHead(200).end();

/** Start a collecting receiver on a free loopback port; `answer` answers each request (200 by default). */
export async function startCollectingReceiver(answer: Answer = ok): Promise<CollectingReceiver> {
  const received: Received[] = [];
  const waiting = new Set<{ count: number; settle: (error?: Error) => void }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(request);
      for (const waiter of waiting) if (received.length >= waiter.count) waiter.settle();
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const arrived = (count: number, timeoutMs = ARRIVAL_TIMEOUT_MS) =>
    new Promise<Received[]>((resolve, reject) => {
      if (received.length >= count) return resolve(received);
      const waiter = {
        count,
        settle: (error?: Error) => {
          clearTimeout(timer);
          waiting.delete(waiter);
          if (error) reject(error);
          else resolve(received);
        },
      };
      const said = (why: string) => new Error(`${received.length} of ${count} requests arrived ${why}`);
      const timer = setTimeout(() => waiter.settle(said(`within ${timeoutMs} ms`)), timeoutMs);
      waiting.add(waiter);
    });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    arrived,
    close: () =>
      new Promise<void>((resolve) => {
        for (const waiter of waiting)
          waiter.settle(new Error(`${received.length} of ${waiter.count} requests arrived before close`));
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
