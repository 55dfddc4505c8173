// The probe's receiver of webhook events: a local listener that keeps each delivery with the suite's
// verdict on it (conformance/checks/webhooks.ts, the AsyncAPI contract), so that a workflow's awaited
// event is found by its message and the record's id, and waited for without polling.
import { EventEmitter } from "node:events";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSafeServer } from "../../src/server/handler.js";
import type { Exchange } from "../traffic/exchange.js";
import type { EntryResult } from "../findings/findings.js";
import type { WebhookChecker } from "../checks/webhooks.js";

/** A delivery body larger than this is refused (413) and not kept: the contract's events are small. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** At most this many deliveries, and this many bytes of them, are kept; older ones are forgotten first. */
const MAX_KEPT = 2000;
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
/**
 * Deliveries read at once: a peer opening more connections finds them closed, so that what is being
 * read stays within this many times MAX_EVENT_BYTES.
 */
export const MAX_CONNECTIONS = 64;
/** How long one delivery may take to arrive, head and body: a peer trickling one then gets a 408. */
export const EVENT_REQUEST_TIMEOUT_MS = 30_000;

/** A delivery the receiver got: its JSON body and the contract's verdict (operationId: the message). */
export interface ReceivedEvent {
  json: unknown;
  verdict: EntryResult;
  /** The delivery's body size, counted against what the receiver keeps. */
  bytes: number;
}

/** Every byte of a request, up to `max`; undefined past it. */
async function bodyOf(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The probe's listener of webhook deliveries. */
export class EventReceiver {
  private readonly kept: ReceivedEvent[] = [];
  private keptBytes = 0;
  private readonly arrivals = new EventEmitter();

  private constructor(
    private readonly server: Server,
    /** The listener's own address (`http://127.0.0.1:port/`). */
    readonly localUrl: string,
  ) {
    // Every workflow in flight may be waiting at once.
    this.arrivals.setMaxListeners(0);
  }

  /**
   * Listen on `port` (0: any free one) of `host`, judging each delivery with `checker`. The server is
   * the suite's safe one: a malformed request, an aborted body or a failure is answered, never thrown.
   */
  static async listen(
    checker: WebhookChecker,
    port: number,
    host = "127.0.0.1",
    requestTimeoutMs = EVENT_REQUEST_TIMEOUT_MS,
  ): Promise<EventReceiver> {
    const taken: { receiver?: EventReceiver } = {};
    const server = createSafeServer(
      async (req, res) => {
        const status = taken.receiver ? await taken.receiver.take(checker, req) : 503;
        res.writeHead(status).end();
      },
      // What the probe's peer sent is never quoted back.
      { errorBody: (_status, message) => ({ message }), requestTimeoutMs },
    );
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
    const address = server.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    taken.receiver = new EventReceiver(server, `http://${shownHost}:${address.port}/`);
    return taken.receiver;
  }

  /** Keep one delivery; the status to answer. */
  private async take(checker: WebhookChecker, req: IncomingMessage): Promise<number> {
    const body = await bodyOf(req, MAX_EVENT_BYTES);
    if (!body) return 413;
    const headers: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(req.headersDistinct))
      if (value) headers[name] = value.join(", ");
    const exchange: Exchange = {
      index: 0,
      request: {
        method: req.method ?? "POST",
        path: "/",
        query: Object.create(null),
        headers,
        body: { kind: "bytes", bytes: body },
      },
    };
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      json = undefined;
    }
    const event = { json, verdict: checker.checkDelivery(exchange), bytes: body.length };
    this.keep(event);
    this.arrivals.emit("event", event);
    return 200;
  }

  /** Keep `event`, forgetting the oldest while the count or the bytes kept are over their bounds. */
  private keep(event: ReceivedEvent): void {
    this.kept.push(event);
    this.keptBytes += event.bytes;
    while (this.kept.length > MAX_KEPT || this.keptBytes > MAX_KEPT_BYTES)
      this.keptBytes -= this.kept.shift()?.bytes ?? 0;
  }

  /** The first delivery kept that `matches`, or the first to arrive within `ms`; undefined if none. */
  waitFor(matches: (event: ReceivedEvent) => boolean, ms: number): Promise<ReceivedEvent | undefined> {
    const found = this.kept.find(matches);
    if (found || ms <= 0) return Promise.resolve(found);
    return new Promise((resolve) => {
      const listener = (event: ReceivedEvent) => {
        if (!matches(event)) return;
        done(event);
      };
      const timer = setTimeout(() => done(undefined), ms);
      const done = (event: ReceivedEvent | undefined) => {
        clearTimeout(timer);
        this.arrivals.off("event", listener);
        resolve(event);
      };
      this.arrivals.on("event", listener);
    });
  }

  /** Stop listening. */
  close(): Promise<void> {
    this.arrivals.removeAllListeners();
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
