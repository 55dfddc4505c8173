// The two forms of createWebhookHandler called directly, with no socket: `.node` with a stream
// shaped as an IncomingMessage and a response that records what is written, `.fetch` with a
// Request. Nothing here waits on the network or a clock, so a test decides every interleaving
// (with a store or a handler whose promises it settles).
import { Readable } from "node:stream";
import type { DedupeStore, NodeResponseLike, WebhookHandler } from "../../src/webhooks/index.js";
import { type Delivery, deliveryOf } from "./deliveries.js";
import type { Form } from "./handler-servers.js";

export const TOKEN = "tok_direct_handler_5e21";
export const BEARER = { scheme: "bearer", token: TOKEN } as const;

/** What the handler answered. */
export interface Answer {
  status: number;
  body: string;
}

/** The example delivery of an event, with the credentials the service sends on its channel. */
export function sentDelivery(event = "completed"): Delivery {
  const d = deliveryOf(event);
  if (d.channel !== "workflowCase") d.headers = { ...d.headers, Authorization: `Bearer ${TOKEN}` };
  return d;
}

/** Hand one delivery to a handler in one form; the answer once it is written. */
export function deliver(handler: WebhookHandler, form: Form, d: Delivery): Promise<Answer> {
  if (form === "fetch")
    return handler
      .fetch(
        new Request("http://receiver.test/idv/events", { method: "POST", headers: d.headers, body: d.body }),
      )
      .then(async (response) => ({ status: response.status, body: await response.text() }));
  return new Promise((resolve) => {
    const headers = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const req = Object.assign(Readable.from([Buffer.from(d.body)]), { method: "POST", url: "/", headers });
    let status = 0;
    const res: NodeResponseLike = {
      headersSent: false,
      destroyed: false,
      writeHead(code) {
        status = code;
        (this as { headersSent: boolean }).headersSent = true;
      },
      end: (body) => resolve({ status, body }),
    };
    handler.node(req, res);
  });
}

/** A promise and the functions that settle it. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A DedupeStore in memory whose claims wait, while the gate is shut, until the test opens it (then
 * each answers as the store stands when it goes through), and whose release fails the times told.
 */
export function gatedStore(options: { releaseFailures?: number } = {}) {
  const recorded = new Set<string>();
  const shut: (() => void)[] = [];
  const watchers: { count: number; done: () => void }[] = [];
  let open = false;
  let releaseFailures = options.releaseFailures ?? 0;
  const calls = { claims: 0, releases: 0 };
  const store: DedupeStore = {
    async claim(key) {
      calls.claims++;
      for (const w of watchers.filter((w) => calls.claims >= w.count)) w.done();
      if (!open) await new Promise<void>((resolve) => shut.push(resolve));
      return !recorded.has(key) && Boolean(recorded.add(key));
    },
    async release(key) {
      calls.releases++;
      if (releaseFailures-- > 0) throw new Error("ETIMEDOUT");
      recorded.delete(key);
    },
  };
  return {
    store,
    calls,
    recorded,
    /** Resolves once `count` claims have been made (answered or not). */
    claimed(count: number): Promise<void> {
      const { promise, resolve } = deferred();
      if (calls.claims >= count) resolve();
      else watchers.push({ count, done: resolve });
      return promise;
    },
    /** Let every waiting claim, and every later one, through. */
    openGate(): void {
      open = true;
      for (const go of shut.splice(0)) go();
    },
  };
}
