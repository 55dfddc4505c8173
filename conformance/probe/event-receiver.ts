// The probe's receiver of webhook events: a local listener that keeps each delivery with the suite's
// verdict on it (conformance/checks/webhooks.ts, the AsyncAPI contract), so that a workflow's awaited
// event is found by its message and the record's id, and waited for without polling.
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Exchange } from "../traffic/exchange.js";
import type { EntryResult } from "../findings/findings.js";
import type { WebhookChecker } from "../checks/webhooks.js";

/** A delivery body larger than this is refused (413) and not kept: the contract's events are small. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** At most this many deliveries, and this many bytes of them, are kept; older ones are forgotten first. */
const MAX_KEPT = 2000;
const MAX_KEPT_BYTES = 64 * 1024 * 1024;

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

  /** Listen on `port` (0: any free one) of `host`, judging each delivery with `checker`. */
  static async listen(checker: WebhookChecker, port: number, host = "127.0.0.1"): Promise<EventReceiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
    const address = server.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const receiver = new EventReceiver(server, `http://${shownHost}:${address.port}/`);
    server.on("request", (req, res) => {
      void receiver.take(checker, req).then(
        (status) => res.writeHead(status).end(),
        () => res.writeHead(500).end(),
      );
    });
    return receiver;
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
