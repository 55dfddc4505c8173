// Hostile requests to createWebhookHandler, in both forms, as properties: whatever the body and the
// headers, it answers (never throws, never rejects), calls no handler for anything that is not a
// checked event of the contract, touches no built-in prototype, and its answer is one generic word
// with no canary in it.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDeduper,
  createWebhookHandler,
  type DedupeStore,
  parseWebhook,
  type WebhookHandler,
} from "../../src/webhooks/index.js";
import {
  assertPrototypesUntouched,
  canary,
  containsCanary,
  hostileHeaders,
  hostileJsonText,
  invalidUtf8Json,
  prototypeSnapshot,
} from "../support/hostile.js";
import { exampleDeliveries } from "./deliveries.js";
import { type Form, FORMS, listenerOf, serve } from "./handler-servers.js";

const TOKEN = "tok_hostile_handler_72aa";
const WORDS = ["OK", "Bad Request", "Unauthorized", "Not Found", "Method Not Allowed", "Content Too Large"];
const deliveries = exampleDeliveries();

/** A body a stranger may send: hostile JSON text, bytes that are not UTF-8, or a real delivery. */
const hostileBody = (): fc.Arbitrary<string | Uint8Array> =>
  fc.oneof(
    hostileJsonText(),
    invalidUtf8Json(),
    fc.constantFrom(...deliveries.map((d) => d.body)),
    canary().map((c) => `{"event":${JSON.stringify(c)},"transaction_id":${JSON.stringify(c)}}`),
  );

/** An Authorization header that is not the right one: absent, wrong, malformed, a canary. */
const wrongAuthorization = (): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    fc.constant(undefined),
    canary().map((c) => `Bearer ${c}`),
    canary().map((c) => `Basic ${Buffer.from(`${c}:${c}`).toString("base64")}`),
    canary(),
    fc.constantFrom("Bearer", "Basic ==", "Basic %%%", `bearer  ${TOKEN}x`, "Digest realm=x"),
  );

const method = () =>
  fc.oneof({ weight: 5, arbitrary: fc.constant("POST") }, fc.constantFrom("GET", "PUT", "PATCH"));

/** A handler whose every call, and every use of its dedupe store, is counted. */
function counted() {
  const counts = { handler: 0, unknown: 0, claims: 0 };
  const claimed = new Set<string>();
  const store: DedupeStore = {
    claim(key) {
      counts.claims++;
      return !claimed.has(key) && Boolean(claimed.add(key));
    },
  };
  const options = {
    dedupe: createDeduper({ store }),
    on: () => void counts.handler++,
    onUnknown: () => void counts.unknown++,
    onError: () => undefined,
    maxBodyBytes: 64_000,
  };
  return {
    counts,
    events: createWebhookHandler({ credentials: { scheme: "bearer", token: TOKEN }, ...options }),
    cases: createWebhookHandler({ credentials: "none", ...options }),
  };
}

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/** Send one request through a form: in process for fetch, over loopback for node. */
type Send = (
  path: string,
  init: { method: string; headers: [string, string][]; body: string | Uint8Array },
) => Promise<Answer>;

function expectQuiet(answer: Answer) {
  expect(WORDS).toContain(answer.body);
  const said = [...answer.headers].map(([n, v]) => `${n}: ${v}`).join("\n") + answer.body;
  expect(containsCanary(said)).toBe(false);
}

describe.each(FORMS)("hostile requests to the %s form", (form: Form) => {
  const { counts, events, cases } = counted();
  let send: Send;
  let close = async () => {};
  beforeAll(async () => {
    if (form === "fetch") {
      const routes: Record<string, WebhookHandler> = { "/idv/events": events, "/cases/c": cases };
      send = async (path, { method, headers, body }) => {
        const response = await routes[path]!.fetch(
          new Request(`http://receiver.test${path}`, {
            method,
            headers,
            ...(method === "GET" ? {} : { body: body as BodyInit }),
          }),
        );
        return { status: response.status, headers: response.headers, body: await response.text() };
      };
    } else {
      const server = await serve(listenerOf("node", { "/idv/events": events, "/cases/c": cases }));
      close = server.close;
      send = async (path, { method, headers, body }) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers,
          ...(method === "GET" ? {} : { body: body as BodyInit }),
        });
        return { status: response.status, headers: response.headers, body: await response.text() };
      };
    }
  });
  afterAll(() => close());
  const runs = form === "fetch" ? 300 : 80;

  it("without the right credentials: 401 (or 405), no handler, no store, nothing said", async () => {
    const before = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(
        method(),
        hostileHeaders(),
        wrongAuthorization(),
        hostileBody(),
        async (m, headers, auth, body) => {
          const start = { ...counts };
          const all: [string, string][] = [
            ...headers,
            ...(auth === undefined ? [] : [["authorization", auth] as [string, string]]),
          ];
          const answer = await send("/idv/events", { method: m, headers: all, body });
          expect(answer.status).toBe(m === "POST" ? 401 : 405);
          expect(counts).toEqual(start);
          expectQuiet(answer);
        },
      ),
      { numRuns: runs },
    );
    assertPrototypesUntouched(before);
  }, 60_000);

  it("with the right credentials: a handler only for a checked event of the contract, nothing said", async () => {
    const before = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(
        hostileHeaders(),
        hostileBody(),
        fc.constantFrom("/idv/events", "/cases/c"),
        async (headers, body, path) => {
          const start = { ...counts };
          const all: [string, string][] = [...headers, ["authorization", `Bearer ${TOKEN}`]];
          const answer = await send(path, { method: "POST", headers: all, body });
          expect([200, 400, 404, 413]).toContain(answer.status);
          expectQuiet(answer);
          const { event } = parseWebhook(body, new Headers(all));
          // A handler runs only for a delivery the contract describes, answered 200.
          if (!event || answer.status !== 200) expect(counts).toEqual(start);
          else if (event.kind === "unknown") expect(counts.handler).toBe(start.handler);
          else expect(counts.unknown).toBe(start.unknown);
        },
      ),
      { numRuns: runs },
    );
    assertPrototypesUntouched(before);
  }, 60_000);
});
