// The probe bench's injected defects (bench/probe-defects/, issue 46) fire on their trigger and
// only on it: for each defect of the table, its sample requests meet the condition and the last is
// answered differently from a clean sandbox; every request example of the operations it touches is
// answered as the clean sandbox answers it (the table says no example reaches any of them). Both
// sides are in-process sandboxes (no socket); answers are compared by status, media type and the
// JSON types of every member, since ids and timestamps differ from one sandbox to another.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { Json } from "../../src/contract/json.js";
import { DEFECTS } from "../../bench/probe-defects/defects.js";
import { type Defect, DefectMemory } from "../../bench/probe-defects/defect.js";
import {
  type ForwardAnswer,
  type ForwardRequest,
  header,
  parseJson,
  seeRequest,
} from "../../bench/probe-defects/exchange.js";
import { defectHandler, type Upstream } from "../../bench/probe-defects/handler.js";
import { buildRequest, exampleBodies, exampleParam } from "../../bench/probe-defects/requests.js";
import { createSandbox, type InProcessSandbox } from "../../sandbox/in-process.js";

const CREDENTIALS = { key: "defects-key", secret: "defects-secret" };
const open: InProcessSandbox[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** An in-process sandbox as an upstream of the defect handler. */
async function sandboxUpstream(): Promise<Upstream> {
  const sandbox = await createSandbox(CREDENTIALS);
  open.push(sandbox);
  return async (request: ForwardRequest): Promise<ForwardAnswer> => {
    const response = await sandbox.fetch(new URL(request.url, sandbox.url), {
      method: request.method,
      headers: request.headers,
      ...(request.body.length > 0 ? { body: new Uint8Array(request.body) } : {}),
    });
    return {
      status: response.status,
      headers: [...response.headers.entries()],
      body: Buffer.from(await response.arrayBuffer()),
    };
  };
}

/** The JSON types of every member, values left out: what must not change between two sandboxes. */
function skeleton(value: Json): Json {
  if (Array.isArray(value)) return value.map(skeleton);
  if (value === null || typeof value !== "object") return value === null ? "null" : typeof value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, skeleton(value[k])]),
  );
}

const signature = (answer: ForwardAnswer) => ({
  status: answer.status,
  type: header(answer.headers, "content-type")?.split(";")[0],
  json: skeleton(parseJson(answer.body)),
});

/** A clean sandbox and one behind the defect, each sent the same steps (each its own ids). */
async function sides(defect: Defect) {
  const clean = await sandboxUpstream();
  const broken = defectHandler(defect, await sandboxUpstream());
  const earlier = { clean: [] as Json[], broken: [] as Json[] };
  const step = async (operationId: string, make: (earlier: Json[]) => { body?: Json; param?: string }) => {
    const a = await clean(buildRequest(operationId, make(earlier.clean), CREDENTIALS));
    const b = await broken(buildRequest(operationId, make(earlier.broken), CREDENTIALS));
    earlier.clean.push(parseJson(a.body));
    earlier.broken.push(parseJson(b.body));
    return { clean: a, broken: b };
  };
  return { step };
}

describe.each(DEFECTS.map((d) => [d.name, d] as const))("defect %s", (_name, defect) => {
  it("is answered differently from the clean sandbox on its trigger", async () => {
    const { step } = await sides(defect);
    let last: { clean: ForwardAnswer; broken: ForwardAnswer } | undefined;
    for (const s of defect.sample) {
      last = await step(s.operationId, (earlier) => {
        const example = exampleBodies(s.operationId)[0];
        const body = example === undefined ? undefined : s.body ? s.body(structuredClone(example)) : example;
        const param = typeof s.param === "function" ? s.param(earlier) : s.param;
        return { body, param };
      });
    }
    expect(last, "the sample has a step").toBeDefined();
    expect(defect.operations).toContain(defect.sample.at(-1)?.operationId);
    // The clean sandbox's own answer is a documented one the contract's checks accept.
    expect(last!.clean.status, "the clean sandbox answers the trigger normally").toBeLessThan(500);
    expect(signature(last!.broken)).not.toEqual(signature(last!.clean));
  });

  it("answers every request example of the operations it touches as the clean sandbox", async () => {
    expect(defect.examplesTrigger, "the table says whether examples reach it").toBe(false);
    const { step } = await sides(defect);
    for (const operationId of defect.operations) {
      const bodies = exampleBodies(operationId);
      const param = exampleParam(operationId);
      for (const body of bodies.length > 0 ? bodies : [undefined]) {
        const { clean, broken } = await step(operationId, () => ({ body, param }));
        expect(signature(broken), `${operationId} ${JSON.stringify(body)?.slice(0, 60)}`).toEqual(
          signature(clean),
        );
      }
    }
  });
});

describe("the table", () => {
  it("holds 16 defects of every kind the issue names, v2 and v4, with distinct names", () => {
    expect(DEFECTS).toHaveLength(16);
    expect(new Set(DEFECTS.map((d) => d.name)).size).toBe(16);
    expect(new Set(DEFECTS.map((d) => d.kind))).toEqual(
      new Set([
        "boundary",
        "non-ascii",
        "conditional rule",
        "optional member",
        "leap day",
        "integer id",
        "chain",
        "state",
        "response shape",
        "error shape",
      ]),
    );
    const versions = new Set(
      DEFECTS.flatMap((d) => d.operations).map((id) =>
        buildRequest(id, {}, CREDENTIALS).url.includes("/v2/") ? 2 : 4,
      ),
    );
    expect(versions).toEqual(new Set([2, 4]));
    for (const d of DEFECTS) for (const op of d.operations) expect(d.scope).toContain(op);
  });

  it("leaves the clean pass-through alone: no defect, the sandbox's answer as it is", async () => {
    const upstream = await sandboxUpstream();
    const clean = defectHandler(undefined, upstream);
    const request = buildRequest("createPepCheck", { body: exampleBodies("createPepCheck")[0] }, CREDENTIALS);
    expect((await clean(request)).status).toBe(200);
  });
});

describe("hostile exchanges", () => {
  // A defect that threw would turn an exchange into the server's 502: a catch the defect never made.
  it("no defect throws on any body, path parameter or answer", () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const bytes = fc.oneof(
      json.map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...DEFECTS),
        fc.nat(),
        fc.string({ maxLength: 24 }),
        bytes,
        fc.integer({ min: 100, max: 599 }),
        bytes,
        (defect, pick, param, body, status, answerBody) => {
          const operationId = defect.scope[pick % defect.scope.length] as string;
          const request = buildRequest(operationId, { param }, CREDENTIALS);
          const seen = seeRequest({ ...request, body });
          const answer = { status, headers: [] as [string, string][], body: answerBody };
          defect.before?.(seen);
          defect.after?.(seen, answer, new DefectMemory());
        },
      ),
      { numRuns: 500 },
    );
  });
});
