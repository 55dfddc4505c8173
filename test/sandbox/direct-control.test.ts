// createSandbox's control helpers call the sandbox's answers directly (sandbox/control/direct.ts):
// what the sandbox is asked and what the caller gets must be what openapi-fetch over the sandbox's
// fetch would give, refusals and failures included.
import fc from "fast-check";
import createFetchClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { directControlCalls } from "../../sandbox/control/direct.js";
import {
  createSandbox,
  createSandboxControl,
  type InProcessSandbox,
  SandboxControlError,
  type SandboxControl,
} from "../../sandbox/index.js";
import type { Answer } from "../../src/server/answer.js";
import { fetchAdapter, type FetchAdapterOptions } from "../../src/server/fetch-adapter.js";
import { HttpError } from "../../src/server/handler.js";
import type { PipelineRequest } from "../../src/server/pipeline.js";
import { createClient } from "../../src/index.js";
import { CREDENTIALS } from "../support/sandbox.js";

const BASE = "http://sandbox.idv.test";

/** What the app was asked: everything a handler can read. */
async function asked(request: PipelineRequest) {
  const read = await request.readBody(64 * 1024);
  return {
    method: request.method,
    target: request.target,
    headers: { ...request.headers },
    body: read.ok ? read.bytes.toString("utf8") : `too large: ${read.size}`,
  };
}

/** An app answering `answer` (or throwing it), keeping what it was asked. */
function appOf(reply: () => Answer) {
  const seen: unknown[] = [];
  const app = async (request: PipelineRequest) => {
    seen.push(await asked(request));
    return { answer: reply(), line: `${request.method} ${request.target.pathname}` };
  };
  return { app, seen };
}

/** Call one of a client's methods loosely: the property's paths are any template. */
type LooseCall = (
  path: string,
  init?: object,
) => Promise<{ data?: unknown; error?: unknown; response: { status: number } }>;

/** The outcome of a call, or the name of its rejection. */
async function outcomeOf(pending: Promise<Awaited<ReturnType<LooseCall>>>) {
  try {
    const { data, error, response } = await pending;
    return { data, error, status: response.status };
  } catch (rejection) {
    return { rejected: (rejection as Error).name };
  }
}

/** The same call through openapi-fetch over the fetch adapter, and directly. */
async function bothWays(reply: () => Answer, method: "GET" | "POST" | "DELETE", path: string, init: object) {
  const sides = [] as { outcome: unknown; seen: unknown[]; logged: string[]; failures: string[] }[];
  for (const direct of [false, true]) {
    const { app, seen } = appOf(reply);
    const logged: string[] = [];
    const failures: string[] = [];
    const options: FetchAdapterOptions = {
      errorBody: (status, message) => ({ error_code: `E${status}`, message }),
      onError: (kind) => failures.push(kind),
      log: (line) => logged.push(line),
    };
    const calls = direct
      ? directControlCalls(app, BASE, options)
      : createFetchClient({ baseUrl: BASE, fetch: fetchAdapter(app, options) as typeof fetch });
    const call = (calls as unknown as Record<string, LooseCall>)[method] as LooseCall;
    sides.push({ outcome: await outcomeOf(call(path, init)), seen, logged, failures });
  }
  return sides;
}

// Any status an answer may carry: a 205 or 304 has no body over fetch, one outside 200-599 no
// Response at all (the app's failure), one not an integer is read as a Response reads it (204.5 a
// 204, 65736 a 200); bytes may start with a BOM, which reading them as text drops.
const statuses = fc.constantFrom(
  200,
  201,
  202,
  204,
  205,
  301,
  304,
  400,
  401,
  404,
  409,
  413,
  422,
  500,
  503,
  101,
  103,
  199,
  600,
  204.5,
  65736,
  Number.NaN,
);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const bytes = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => Buffer.from(s)),
  fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.concat([BOM, Buffer.from(JSON.stringify(value))])),
  fc.constant(BOM),
  fc.uint8Array({ maxLength: 12 }).map((array) => Buffer.from(array)),
);
// Headers a Response refuses (a line break in a value) make the app's failure; chunked makes a
// Content-Length of 0 no sign of an empty body to openapi-fetch.
const headers = fc.constantFrom<Record<string, string> | undefined>(
  undefined,
  { "retry-after": "1" },
  { "Transfer-Encoding": "chunked" },
  { "x-note": "a\nb" },
);
const answers: fc.Arbitrary<Answer> = fc.oneof(
  fc.record(
    { status: statuses, json: fc.jsonValue({ maxDepth: 3 }), headers },
    { requiredKeys: ["status", "json"] },
  ),
  fc.record({ status: statuses, headers }, { requiredKeys: ["status"] }),
  fc.record({ status: statuses, bytes, headers }, { requiredKeys: ["status", "bytes"] }),
);
const templates = fc.constantFrom(
  "/_sandbox/clock",
  "/_sandbox/deliveries",
  "/_sandbox/deliveries/{delivery_id}",
  "/_sandbox/biometric_verifications/{transaction_id}/complete",
  "/_sandbox/workflow_cases/{case_id}",
);
// Segments a URL parser rewrites or a path encoder refuses (a lone surrogate), and any text.
const segment = fc.oneof(
  fc.constantFrom("", ".", "..", "%", "%2e%2e", "/", "?", "#", "a b", "é", "\uD800", "\\"),
  fc.string({ maxLength: 12, unit: "binary" }),
);
// Query values as helpers may be given them (a DeliveryFilter from untyped code): arrays, objects
// (a nested one is refused by the serializer), numbers, nothing.
const queryValue = fc.oneof(
  segment,
  fc.array(segment, { maxLength: 3 }),
  fc.constantFrom(undefined, null, 0, true),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(segment, fc.array(segment, { maxLength: 2 })), {
    maxKeys: 2,
  }),
);
const params = fc.record(
  {
    path: fc.record({
      delivery_id: segment,
      transaction_id: segment,
      case_id: fc.oneof(fc.integer(), fc.double(), segment),
    }),
    query: fc.dictionary(
      fc.oneof(fc.constantFrom("status", "subject", "event", "receiver_id"), segment),
      queryValue,
    ),
  },
  { requiredKeys: [] },
);

// Bodies whose JSON text is not what they hold (none, a null, a throw) as well as JSON values.
const bodies = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.anything({ maxDepth: 2 }),
  fc.constantFrom<unknown>(
    null,
    "\uD800",
    Number.NaN,
    -0,
    new Date(0),
    [undefined],
    () => 1,
    Symbol("s"),
    { toJSON: () => undefined },
    1n,
  ),
);

describe("the direct control calls", () => {
  it("ask the sandbox what openapi-fetch over its fetch asks, and give back what it gives", async () => {
    await fc.assert(
      fc.asyncProperty(
        answers,
        fc.constantFrom("GET", "POST", "DELETE") as fc.Arbitrary<"GET" | "POST" | "DELETE">,
        templates,
        params,
        fc.option(bodies, { nil: undefined }),
        async (answer, method, template, given, body) => {
          // A body with no JSON text (undefined inside an array is null) is still a body of JSON text.
          const init = { params: given, ...(body === undefined || method === "GET" ? {} : { body }) };
          const [overFetch, direct] = await bothWays(() => answer, method, template, init);
          expect(direct).toEqual(overFetch);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answer a throw as the fetch adapter does: an HttpError's status, any other a 500 told by kind", async () => {
    const throws: (() => never)[] = [
      () => {
        throw new HttpError(413, "too large");
      },
      () => {
        throw new RangeError("secret detail");
      },
    ];
    for (const reply of throws) {
      const [overFetch, direct] = await bothWays(reply, "POST", "/_sandbox/clock/advance", { body: {} });
      expect(direct).toEqual(overFetch);
      expect(JSON.stringify(direct)).not.toContain("secret detail");
    }
    // A body that cannot be written and a path that cannot be encoded: openapi-fetch writes the body first.
    const [bodyFirst, directBodyFirst] = await bothWays(
      () => ({ status: 200, json: {} }),
      "POST",
      "/_sandbox/deliveries/{delivery_id}/replay",
      { params: { path: { delivery_id: "\uD800" } }, body: { notes: 1n } },
    );
    expect(directBodyFirst).toEqual(bodyFirst);
    // A json with no JSON text is the app's failure, over both.
    const [overFetch, direct] = await bothWays(
      () => ({ status: 200, json: () => 1 }),
      "GET",
      "/_sandbox/clock",
      {},
    );
    expect(direct).toEqual(overFetch);
    expect(direct?.failures).toEqual(["TypeError"]);
  });
});

describe("createSandbox()'s control", () => {
  let sandbox: InProcessSandbox;
  let overFetch: SandboxControl;
  const lines: string[] = [];
  beforeAll(async () => {
    sandbox = await createSandbox({
      key: CREDENTIALS.apiKey,
      secret: CREDENTIALS.secret,
      log: (line) => lines.push(line),
    });
    overFetch = createSandboxControl(sandbox.url, { fetch: sandbox.fetch });
  });
  afterAll(() => sandbox?.close());

  it("makes no fetch: its helpers do not go through control.api", async () => {
    const get = vi.spyOn(sandbox.control.api, "GET");
    await sandbox.control.clock();
    await sandbox.control.receivers();
    expect(get).not.toHaveBeenCalled();
    get.mockRestore();
  });

  it("goes through control.api once a middleware is added to it, so that it sees every helper's request", async () => {
    const other = await createSandbox({ key: CREDENTIALS.apiKey, secret: CREDENTIALS.secret });
    try {
      const seen: string[] = [];
      other.control.api.use({
        onRequest: ({ request }) => {
          seen.push(`${request.method} ${new URL(request.url).pathname}`);
        },
      });
      await other.control.clock();
      await other.control.settled();
      expect(seen).toEqual(["GET /_sandbox/clock", "POST /_sandbox/settle"]);
    } finally {
      await other.close();
    }
  });

  /** A helper's result, or its refusal's status, code and message. */
  const settle = (pending: Promise<unknown>) =>
    pending.then(
      (value) => ({ value }),
      (error: unknown) =>
        error instanceof SandboxControlError
          ? { status: error.status, code: error.code, message: error.message }
          : { thrown: String(error) },
    );

  it("answers as over its fetch, refusals included, and logs the same lines", async () => {
    const asks: ((control: SandboxControl) => Promise<unknown>)[] = [
      (c) => c.clock().then((clock) => clock.offset_ms),
      (c) => c.receivers(),
      (c) => c.advance("P1Y"),
      (c) => c.advance("soon"),
      (c) => c.biometric.get("tx_nowhere"),
      (c) => c.biometric.complete("../clock", "pass"),
      (c) => c.workflow.get(Number.NaN),
      (c) => c.addReceiver({ url: "ftp://x.example/" }),
      (c) => c.trigger("completed", { set: { "verification.status": 7 } }),
      // @ts-expect-error an event the contract does not have: refused at run time too
      (c) => c.trigger("no_such_event"),
      (c) => c.trigger("completed", { set: { "verification.notes": "x".repeat(70 * 1024) } }),
      (c) => c.deliveries({ status: "nope" as "failed" }),
      (c) => c.replay("dlv_nowhere"),
      (c) => c.removeReceiver("rcv_nowhere"),
      // Ids a URL parser rewrites ("..", "." and "" name the collection), or that name no route.
      (c) => c.delivery(".."),
      (c) => c.delivery(""),
      (c) => c.delivery("%"),
      (c) => c.replay("a/b?c#d"),
      (c) => c.biometric.get("."),
      (c) => c.biometric.edit("é", undefined),
      (c) => c.biometric.error("tx", "why"),
      (c) => c.testReceiver("rcv_nowhere"),
      (c) => c.workflow.get(-1),
      (c) => c.workflow.create(null as never),
      (c) => c.deliveries({ subject: ["a", "b"] as never, event: undefined }),
      (c) =>
        c.trigger("completed", {
          set: JSON.parse('{"__proto__": 1, "a.b": null}') as Record<string, unknown>,
        }),
      (c) => c.waitForDelivery(() => false, { status: "failed" }, -1),
    ];
    for (const ask of asks) {
      lines.length = 0;
      const viaFetch = await settle(ask(overFetch));
      const fetchLines = [...lines];
      lines.length = 0;
      const direct = await settle(ask(sandbox.control));
      expect(direct, ask.toString()).toEqual(viaFetch);
      expect(lines, ask.toString()).toEqual(fetchLines);
    }
  });

  it("gives a copy: changing what a helper returned changes nothing kept", async () => {
    await sandbox.receivers.add(() => new Response(null, { status: 204 }));
    const client = createClient({ baseUrl: sandbox.url, ...CREDENTIALS, fetch: sandbox.fetch });
    const created = await client.POST("/api/v2/send_text", {
      body: { reference: "direct", firstname: "Mere", lastname: "Tane", contact_phone: "64211234567" },
    });
    const id = created.data?.transaction_id as string;
    await sandbox.control.settled();
    const [delivery] = await sandbox.control.deliveries({ subject: id });
    // A delivery's view holds its kept headers: the caller's copy is its own.
    (delivery?.headers as Record<string, string>)["x-changed"] = "yes";
    const again = await sandbox.control.deliveries({ subject: id });
    expect(again[0]?.headers).not.toHaveProperty("x-changed");
    expect(again).toEqual(await overFetch.deliveries({ subject: id }));
  });
});
