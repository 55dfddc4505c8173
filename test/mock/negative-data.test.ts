// Negative data: every request the contract rejects (a required member dropped, a wrong type,
// a value outside its enum, a string too long, a conditional rule broken, an unknown member)
// is refused by the mock with a 4xx in the operation's error shape; none gets a 2xx or a 5xx.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMock } from "../../mock/server.js";
import {
  type Json,
  jsonRequestExamples,
  jsonRequestSchema,
  loadOpenApi,
  operations,
  validatorsFor,
} from "../support/contract.js";
import { concretePath, credentialsFor, startTestMock } from "../support/mock.js";

const doc = loadOpenApi();
const validator = validatorsFor(doc);
const RUNS = 1200;

interface Target {
  name: string;
  method: string;
  path: string;
  shape: "A" | "B";
  schemaPointer: string;
  examples: Json[];
}

const targets: Target[] = operations(doc).flatMap(({ method, path, pointer, op }) => {
  const examples = jsonRequestExamples(doc, op);
  if (!examples) return [];
  return [
    {
      name: op.operationId,
      method,
      path: concretePath(path),
      shape: path.startsWith("/api/v2/manual_eidv") ? "A" : "B",
      schemaPointer: jsonRequestSchema(pointer),
      examples,
    },
  ];
});

/** Every member path of a JSON value, objects and arrays alike. */
function memberPaths(value: Json, at: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const key = Array.isArray(value) ? Number(k) : k;
    return [[...at, key], ...memberPaths(v, [...at, key])];
  });
}

const get = (v: Json, path: (string | number)[]) => path.reduce((n, k) => n?.[k], v);

type Mutation = (value: Json, path: (string | number)[], pick: number) => void;

const mutations: Record<string, Mutation> = {
  drop: (value, path) => {
    const parent = get(value, path.slice(0, -1));
    const key = path[path.length - 1] as string | number;
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  },
  wrongType: (value, path) => {
    const parent = get(value, path.slice(0, -1));
    const key = path[path.length - 1] as string | number;
    const current = parent[key];
    parent[key] =
      typeof current === "string"
        ? 12345
        : typeof current === "number"
          ? "12345"
          : typeof current === "boolean"
            ? "yes"
            : 0;
  },
  outsideEnum: (value, path) => {
    const parent = get(value, path.slice(0, -1));
    parent[path[path.length - 1] as string | number] = "NOT_A_DOCUMENTED_VALUE";
  },
  tooLong: (value, path, pick) => {
    const parent = get(value, path.slice(0, -1));
    parent[path[path.length - 1] as string | number] = "A".repeat(65 + pick * 100);
  },
  unknownMember: (value, path) => {
    const target = get(value, path.slice(0, -1));
    if (target && typeof target === "object" && !Array.isArray(target)) target.not_in_the_contract = "x";
    else value.not_in_the_contract = "x";
  },
  emptyObject: (value, path) => {
    const parent = get(value, path.slice(0, -1));
    parent[path[path.length - 1] as string | number] = {};
  },
};

let mock: RunningMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(async () => {
  await mock?.close();
});

describe("negative data", () => {
  it(`refuses ${RUNS} contract-invalid requests with a 4xx in the right shape`, async () => {
    let sent = 0;
    const seenOps = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...Object.keys(mutations)),
        fc.nat(3),
        async (t, e, kind, pick) => {
          const target = targets[t % targets.length] as Target;
          const value = structuredClone(target.examples[e % target.examples.length]);
          const paths = memberPaths(value);
          const path =
            paths.length > 0 ? (paths[(t + e + pick) % paths.length] as (string | number)[]) : ["x"];
          mutations[kind]?.(value, path, pick);
          // Only requests the contract itself rejects are negative data.
          fc.pre(!validator(target.schemaPointer)(value));
          const res = await fetch(`${mock.url}${target.path}`, {
            method: target.method.toUpperCase(),
            headers: { ...credentialsFor(target.path), "content-type": "application/json" },
            body: JSON.stringify(value),
          });
          const body = await res.json();
          sent++;
          seenOps.add(target.name);
          expect(res.status, `${target.name} ${kind} at /${path.join("/")}`).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          const schema = target.shape === "A" ? "ManualVerificationError" : "ServiceError";
          expect(validator(`/components/schemas/${schema}`)(body), JSON.stringify(body)).toBe(true);
          if (target.shape === "A")
            expect(Object.keys(body.validation_errors ?? {}).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: RUNS, seed: 20261122, endOnFailure: true },
    );
    expect(sent).toBeGreaterThanOrEqual(1000);
    expect(seenOps.size).toBe(targets.length);
  }, 180_000);
});
