// The receiver under test, served in one of its two forms (handler-servers.ts): a handler for the
// events URL (a bearer token) and one for the workflow URL (a secret path, "none"), with what they
// were called with and what they refused, and a POST of each example delivery as the service sends it.
import type { RequestListener } from "node:http";
import {
  createDeduper,
  createWebhookHandler,
  type KnownWebhookEvent,
  type UnknownWebhookEvent,
  type WebhookHandlerOptions,
  type WebhookRefusal,
} from "../../src/webhooks/index.js";
import { deliveryOf } from "./deliveries.js";
import { type Form, listenerOf, serve } from "./handler-servers.js";

export const TOKEN = "tok_handler_test_91c4";
export const BEARER = { scheme: "bearer", token: TOKEN } as const;
export const EVENTS = "/idv/events";
export const CASES = "/cases/5d0e7b21aa";

const open: (() => Promise<void>)[] = [];

/** Have `closeStarted` close these servers too (those a test serves itself). */
export const closeLater = (...closes: (() => Promise<void>)[]): void => void open.push(...closes);

/** Close every server `start` or `closeLater` holds (each test file's afterEach). */
export const closeStarted = async (): Promise<void> => {
  await Promise.all(open.splice(0).map((close) => close()));
};

/** One handler for the events URL (credentials) and one for the workflow URL ("none"), served in one form. */
export async function start(
  form: Form,
  options: Partial<WebhookHandlerOptions> = {},
  listener?: RequestListener,
) {
  const calls: (KnownWebhookEvent | UnknownWebhookEvent)[] = [];
  const refusals: WebhookRefusal[] = [];
  const on = options.on ?? ((event: KnownWebhookEvent) => void calls.push(event));
  const dedupe = options.dedupe ?? createDeduper();
  const base = { dedupe, on, onRefused: (r: WebhookRefusal) => void refusals.push(r), ...options };
  const events = createWebhookHandler({ credentials: BEARER, ...base });
  const cases = createWebhookHandler({ ...base, credentials: "none" });
  const { url, close } = await serve(listener ?? listenerOf(form, { [EVENTS]: events, [CASES]: cases }));
  open.push(close);
  /** POST a delivery as the service does: workflow ones to the secret path, others with the token. */
  const post = (
    event: string,
    init: { body?: BodyInit; headers?: Record<string, string>; path?: string } = {},
  ) => {
    const d = deliveryOf(event);
    const workflow = d.channel === "workflowCase";
    return fetch(`${url}${init.path ?? (workflow ? CASES : EVENTS)}`, {
      method: "POST",
      headers: { ...d.headers, ...(workflow ? {} : { Authorization: `Bearer ${TOKEN}` }), ...init.headers },
      body: init.body ?? d.body,
      duplex: "half",
    } as RequestInit);
  };
  return { url, calls, refusals, post, events };
}
