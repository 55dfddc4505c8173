// The probe's receiver of webhook events: a local listener that keeps each delivery with the suite's
// verdict on it (conformance/checks/webhooks.ts, the AsyncAPI contract), so that a workflow's awaited
// event is found by its message and the record's id, and waited for without polling. It keeps each
// body's bytes, never its parsed value, under one budget of bytes (event-intake.ts), and refuses
// what would pass it, as it refuses a delivery without the credentials it registered.
import { EventEmitter } from "node:events";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSafeServer } from "../../src/server/handler.js";
import type { Exchange } from "../traffic/exchange.js";
import type { EntryResult } from "../findings/findings.js";
import type { WebhookChecker } from "../checks/webhooks.js";
import { bearerCheck, EventBudget, readCounted, type Refusals, verdictBytes } from "./event-intake.js";

/** A delivery body larger than this is refused (413) and not kept: the contract's events are small. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** At most this many deliveries are kept; past it, new ones are refused (503) and the run says so. */
const MAX_KEPT = 2000;
/**
 * The bytes the listener holds at most, bodies being read and deliveries kept (each its body's bytes
 * and its verdict's); past it, new deliveries are refused (503) and the run says so.
 */
export const EVENT_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Deliveries read at once: a peer opening more connections finds them closed, so that what is being
 * read stays within this many times MAX_EVENT_BYTES.
 */
export const MAX_CONNECTIONS = 64;
/** How long one delivery may take to arrive, head and body: a peer trickling one then gets a 408. */
export const EVENT_REQUEST_TIMEOUT_MS = 30_000;

/** A delivery the receiver kept: the contract's verdict (operationId: the message) and its body. */
export interface ReceivedEvent {
  verdict: EntryResult;
  /** The bytes counted for it against the listener's budget: its body and its verdict. */
  bytes: number;
  /** The body's JSON value, parsed anew at each call (only the bytes are kept); undefined when not JSON. */
  json(): unknown;
}

/** How the listener listens; every member has a default. */
export interface ListenOptions {
  host?: string;
  requestTimeoutMs?: number;
  /** The listener's budget of bytes (EVENT_BUDGET_BYTES). */
  budgetBytes?: number;
}

/** A kept delivery over its bytes: nothing parsed is held between calls. */
function eventOf(body: Buffer, verdict: EntryResult, bytes: number): ReceivedEvent {
  return {
    verdict,
    bytes,
    json: () => {
      try {
        return JSON.parse(body.toString("utf8"));
      } catch {
        return undefined;
      }
    },
  };
}

/** The exchange the webhook checker reads: the delivery's method, headers and bytes. */
function exchangeOf(req: IncomingMessage, body: Buffer): Exchange {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(req.headersDistinct))
    if (value) headers[name] = value.join(", ");
  return {
    index: 0,
    request: {
      method: req.method ?? "POST",
      path: "/",
      query: Object.create(null),
      headers,
      body: { kind: "bytes", bytes: body },
    },
  };
}

/** An answer of the listener: a status and its headers. */
interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/** The probe's listener of webhook deliveries. */
export class EventReceiver {
  private readonly kept: ReceivedEvent[] = [];
  private readonly arrivals = new EventEmitter();
  private readonly budget: EventBudget;
  private authorized: ((req: IncomingMessage) => boolean) | undefined;
  private readonly refused: Refusals = { unauthorized: 0, overBudget: 0 };

  private constructor(
    private readonly server: Server,
    /** The listener's own address (`http://127.0.0.1:port/`). */
    readonly localUrl: string,
    budgetBytes: number,
  ) {
    this.budget = new EventBudget(budgetBytes);
    // Every workflow in flight may be waiting at once.
    this.arrivals.setMaxListeners(0);
  }

  /**
   * Listen on `port` (0: any free one), judging each delivery with `checker`. The server is the
   * suite's safe one: a malformed request, an aborted body or a failure is answered, never thrown.
   */
  static async listen(
    checker: WebhookChecker,
    port: number,
    options: ListenOptions = {},
  ): Promise<EventReceiver> {
    const taken: { receiver?: EventReceiver } = {};
    const server = createSafeServer(
      async (req, res) => {
        const answer = taken.receiver ? await taken.receiver.take(checker, req) : { status: 503 };
        // A body not read to its end leaves the connection unfit for another request.
        const close = req.complete ? {} : { connection: "close" };
        res.writeHead(answer.status, { ...answer.headers, ...close }).end();
      },
      // What the probe's peer sent is never quoted back.
      {
        errorBody: (_status, message) => ({ message }),
        requestTimeoutMs: options.requestTimeoutMs ?? EVENT_REQUEST_TIMEOUT_MS,
      },
    );
    server.maxConnections = MAX_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, options.host ?? "127.0.0.1", resolve);
    });
    const address = server.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const url = `http://${shownHost}:${address.port}/`;
    taken.receiver = new EventReceiver(server, url, options.budgetBytes ?? EVENT_BUDGET_BYTES);
    return taken.receiver;
  }

  /**
   * From now on, take only deliveries that carry this bearer token (the one the probe registers its
   * receiver with): any other is answered 401 and counted, its body unread.
   */
  requireBearer(token: string): void {
    this.authorized = bearerCheck(token);
  }

  /** The bytes the listener holds now (bodies being read, deliveries kept): never over its budget. */
  get heldBytes(): number {
    return this.budget.heldBytes;
  }

  /** The listener's budget of bytes. */
  get budgetBytes(): number {
    return this.budget.totalBytes;
  }

  /** How many deliveries were refused, and why. */
  get refusals(): Readonly<Refusals> {
    return { ...this.refused };
  }

  /** Judge and keep one delivery; the answer to give. */
  private async take(checker: WebhookChecker, req: IncomingMessage): Promise<Answer> {
    if (this.authorized && !this.authorized(req)) {
      this.refused.unauthorized++;
      return { status: 401, headers: { "www-authenticate": "Bearer" } };
    }
    if (this.kept.length >= MAX_KEPT) return this.overBudget();
    const read = await readCounted(req, MAX_EVENT_BYTES, this.budget);
    if (!read.ok) return read.why === "too-large" ? { status: 413 } : this.overBudget();
    const verdict = checker.checkDelivery(exchangeOf(req, read.bytes));
    const extra = verdictBytes(verdict);
    if (!this.budget.take(extra)) {
      this.budget.release(read.bytes.length);
      return this.overBudget();
    }
    const event = eventOf(read.bytes, verdict, read.bytes.length + extra);
    this.kept.push(event);
    this.arrivals.emit("event", event);
    return { status: 200 };
  }

  /** Refused: what the listener holds is at its bound (the sender may retry; the run's notes say so). */
  private overBudget(): Answer {
    this.refused.overBudget++;
    return { status: 503 };
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
