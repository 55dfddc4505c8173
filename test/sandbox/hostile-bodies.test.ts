// Hostile request bodies, as properties (fast-check), against createSandbox's fetch and the same
// sandbox behind MSW: random chunk sizes and lengths (under, at and past the limit, or endless),
// streams that enqueue synchronously, in a microtask or after a turn, that close, fail, stall or
// give what is not bytes, and signals aborted before the call or at any pull. Whatever the case:
// the fetch settles (an abort rejects with the signal's reason, a failed stream with a TypeError,
// a body past the limit is refused), no more is read than the limit and a chunk or two, nothing is
// read once it settled, and a stream given up is cancelled. Bytes are counted as they are pulled.
import fc from "fast-check";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type InProcessSandbox } from "../../sandbox/index.js";
import { sandboxHandlers } from "../../src/msw/index.js";
import { MAX_SERVICE_BODY } from "../../src/server/pipeline.js";
import {
  type AbortPlan,
  abortOf,
  abortPlans,
  countedStream,
  type Enqueue,
  type Ending,
  type StreamPlan,
} from "./body-streams.js";

const baseUrl = "https://idv.example.test";
const CONTROL_LIMIT = 64 * 1024;
const ROUTES = {
  control: { path: "/_sandbox/receivers", limit: CONTROL_LIMIT, minChunk: 1, maxChunk: 8 * 1024 },
  service: { path: "/api/v2/send_text", limit: MAX_SERVICE_BODY, minChunk: 64 * 1024, maxChunk: 512 * 1024 },
} as const;
type Route = keyof typeof ROUTES;

let sandbox: InProcessSandbox;
let server: ReturnType<typeof setupServer>;
let tooLargeStatus: number;
beforeAll(async () => {
  sandbox = await createSandbox({ key: "k", secret: "s" });
  server = setupServer(...sandboxHandlers(sandbox, { baseUrl }));
  server.listen({ onUnhandledRequest: "error" });
  // What the service answers to a body one byte over its limit, given whole.
  tooLargeStatus = (await sandbox.fetch(request("service", new Uint8Array(MAX_SERVICE_BODY + 1)))).status;
});
afterAll(async () => {
  server?.close();
  await sandbox?.close();
});

/** A POST of `body` to a route, with the service's credentials. */
function request(route: Route, body: BodyInit, signal?: AbortSignal, origin = sandbox.url): Request {
  return new Request(`${origin}${ROUTES[route].path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "svc-api-key": "k", "svc-secret": "s" },
    body,
    duplex: "half",
    ...(signal ? { signal } : {}),
  } as RequestInit);
}

interface Case {
  route: Route;
  plan: StreamPlan;
  abort: AbortPlan;
}

/** The pull at which a stream of `plan` reaches its ending (its chunks, then one more). */
const endingPull = (plan: StreamPlan): number => Math.ceil(plan.total / plan.chunk) + 1;

/** Random cases. A stall is always aborted (else only the 60 s deadline ends it: its own test). */
const cases: fc.Arbitrary<Case> = fc
  .record({
    route: fc.constantFrom<Route>("control", "service"),
    size: fc.double({ min: 0, max: 3, noNaN: true }),
    chunkShare: fc.double({ min: 0, max: 1, noNaN: true }),
    endless: fc.boolean(),
    enqueue: fc.constantFrom<Enqueue>("sync", "microtask", "turn"),
    ending: fc.constantFrom<Ending>("close", "error", "stall", "not-bytes"),
    abort: abortPlans(40),
  })
  .map(({ route, size, chunkShare, endless, enqueue, ending, abort }) => {
    const { limit, minChunk, maxChunk } = ROUTES[route];
    const chunk = Math.max(1, Math.round(minChunk + chunkShare * (maxChunk - minChunk)));
    // Endless: capped at four limits, so that a reader with no limit would end (and fail here).
    const total = endless ? 4 * limit : Math.round(size * limit);
    const plan: StreamPlan = { chunk, total, enqueue, ending };
    if (
      ending === "stall" &&
      (abort.at === "never" || (typeof abort.at === "number" && abort.at > endingPull(plan)))
    )
      return { route, plan, abort: { at: endingPull(plan), reason: "default" } as AbortPlan };
    return { route, plan, abort };
  });

/** Run one case through `send`, and check what every case must hold. */
async function holds(
  { route, plan, abort }: Case,
  send: (request: Request) => Promise<Response>,
  origin: string,
  ahead: number,
) {
  const { limit } = ROUTES[route];
  const aborting = abortOf(abort);
  const body = countedStream(plan, aborting.onPull);
  const outcome = await send(request(route, body.stream, aborting.signal, origin)).then(
    async (response) => ({ response, status: response.status, text: await response.text() }),
    (error: unknown) => ({ error }),
  );
  const reason = aborting.reason();
  if (reason !== undefined) expect(outcome).toEqual({ error: reason });
  else if (plan.total > limit)
    expect("status" in outcome && outcome.status).toBe(route === "control" ? 413 : tooLargeStatus);
  else if (plan.ending === "error" || plan.ending === "not-bytes")
    expect("error" in outcome && outcome.error).toBeInstanceOf(TypeError);
  else {
    expect("status" in outcome, String("error" in outcome && outcome.error)).toBe(true);
    expect("status" in outcome && outcome.status).toBeLessThan(500);
  }
  // Bounded in bytes: the limit, the chunk that passed it, and what a stream between read ahead.
  expect(body.pulled()).toBeLessThanOrEqual(limit + (1 + ahead) * plan.chunk);
  // MSW never hands on a request aborted before the call: its own stream reads ahead, no more.
  if (abort.at === "before" && ahead > 0) {
    expect(body.pulled()).toBeLessThanOrEqual(ahead * plan.chunk);
    return;
  }
  // A stream given up is cancelled, and read no more.
  if (!body.endedByItself()) await body.whenCancelled;
  const pulled = body.pulled();
  await new Promise((resolve) => setImmediate(resolve));
  expect(body.pulled()).toBe(pulled);
}

describe("hostile request bodies", () => {
  it("createSandbox's fetch: settles, reads at most a chunk past the limit, cancels what it gives up", async () => {
    await fc.assert(
      fc.asyncProperty(cases, (one) => holds(one, (r) => sandbox.fetch(r), sandbox.url, 0)),
      { numRuns: 60 },
    );
  }, 120_000);

  it("through MSW: the same, with MSW's own stream a chunk ahead", async () => {
    await fc.assert(
      fc.asyncProperty(cases, (one) => holds(one, (r) => fetch(r), baseUrl, 1)),
      { numRuns: 30 },
    );
  }, 120_000);
});
