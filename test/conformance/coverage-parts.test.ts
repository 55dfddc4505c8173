// The parts of coverage: a value walked through its schema (members, branches, enum values, gaps),
// webhook deliveries, the worker path of the CLI, and hostile report files.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { SchemaWalker, type WalkSinks } from "../../conformance/coverage/schema-walk.js";
import { SeenLocations } from "../../conformance/coverage/seen.js";
import { httpUniverse } from "../../conformance/coverage/universe.js";
import { webhookUniverse } from "../../conformance/coverage/webhook-universe.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { parseReport } from "../../conformance/coverage/read-report.js";
import { createWebhookChecker } from "../../conformance/checks/webhooks.js";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import { InputError } from "../../conformance/traffic/input-error.js";
import { messageExamples } from "../../scripts/contract/asyncapi-validate.js";
import { loadAsyncApi, loadOpenApi } from "../support/contract.js";
import { containsCanary, PROTOTYPE_KEYS } from "../support/hostile.js";
import { tempDir, writeNdjson } from "./support/cli.js";
import { examples } from "./support/exchanges.js";
import { runMain } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sinks = (): WalkSinks => {
  const seen = new SeenLocations();
  return {
    side: 0,
    epoch: () => seen.epoch,
    members: seen.of("request-members"),
    branches: seen.of("branches"),
    enums: seen.of("enums"),
    gaps: seen.of("gaps"),
  };
};

describe("the walk of a value through its schema", () => {
  const document = {
    components: {
      schemas: {
        Score: { oneOf: [{ type: "number" }, { type: "string", const: "not-found" }] },
        Kind: { enum: ["person", "company", { x: 1 }] },
        Entry: {
          type: "object",
          "x-gap": { document: "silent", choice: "open" },
          properties: {
            kind: { $ref: "#/components/schemas/Kind" },
            score: { $ref: "#/components/schemas/Score" },
            children: { type: "array", items: { $ref: "#/components/schemas/Entry" } },
          },
        },
      },
    },
  };
  const walker = new SchemaWalker(document, new Set(["/components/schemas/Entry"]));
  const root = walker.at("/components/schemas/Entry");

  it("records the members present, the branch taken, the enum value's place and the gap passed", () => {
    const s = sinks();
    walker.walk(root, { kind: "company", score: "not-found", children: [{ score: 3 }] }, s);
    expect([...s.members].sort()).toEqual([
      "/components/schemas/Entry/properties/children",
      "/components/schemas/Entry/properties/kind",
      "/components/schemas/Entry/properties/score",
    ]);
    expect([...s.branches].sort()).toEqual([
      "/components/schemas/Score/oneOf/0",
      "/components/schemas/Score/oneOf/1",
    ]);
    expect([...s.enums]).toEqual(["/components/schemas/Kind/enum/1"]);
    expect([...s.gaps]).toEqual(["/components/schemas/Entry"]);
  });

  it("takes no branch a value does not fit, and no enum value it is not", () => {
    const s = sinks();
    walker.walk(root, { kind: "persons", score: "found" }, s);
    expect([...s.branches]).toEqual([]);
    expect([...s.enums]).toEqual([]);
  });

  it("counts what it can reach, recursion included, once", () => {
    const reached = walker.reachable([root]);
    expect(reached.members.size).toBe(3);
    expect(reached.branches.size).toBe(2);
    expect(reached.enums.size).toBe(3);
  });

  it("walks a value of any depth and any member names without throwing or touching Object.prototype", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.integer({ min: 0, max: 5000 }),
        (value, key, depth) => {
          let deep: unknown = { [key]: value };
          for (let i = 0; i < depth; i++) deep = { children: [deep], kind: "person" };
          walker.walk(root, deep, sinks());
          expect(Object.prototype).not.toHaveProperty("x");
        },
      ),
      { numRuns: 50 },
    );
  });
  it("records over many values what a fresh walk of each records (skipping what is done loses nothing)", () => {
    // Every location of this one can be seen (no cycle, no enum value that is an object): its nodes get done.
    const doneable = structuredClone(document) as Record<string, any>;
    doneable.components.schemas.Kind.enum = ["person", "company"];
    doneable.components.schemas.Entry.properties.children.items = {
      type: "object",
      properties: { name: { type: "string" }, kind: { $ref: "#/components/schemas/Kind" } },
    };
    // Some members and values only come late: a node done too early would miss them.
    const entry = (late: boolean) =>
      fc.record(
        {
          kind: late
            ? fc.constantFrom("person", "company", "other", 3)
            : fc.constantFrom("person", "company"),
          score: late ? fc.oneof(fc.integer(), fc.constantFrom("not-found", "found")) : fc.integer(),
          children: fc.array(
            late
              ? fc.record(
                  { name: fc.string(), kind: fc.constantFrom("person", "company") },
                  { requiredKeys: [] },
                )
              : fc.record({ kind: fc.constantFrom("person", "company") }),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: [] },
      );
    const entryAt = "/components/schemas/Entry";
    fc.assert(
      fc.property(
        fc.array(entry(false), { maxLength: 80 }),
        fc.array(entry(true), { maxLength: 5 }),
        (early, late) => {
          const values = [...early, ...late];
          const shared = new SchemaWalker(doneable, new Set([entryAt]));
          const once = sinks();
          for (const value of values) shared.walk(shared.at(entryAt), value, once);
          const each = sinks();
          for (const value of values) {
            const fresh = new SchemaWalker(doneable, new Set([entryAt]));
            fresh.walk(fresh.at(entryAt), value, each);
          }
          for (const kind of ["members", "branches", "enums", "gaps"] as const)
            expect([...once[kind]].sort(), kind).toEqual([...each[kind]].sort());
        },
      ),
      { numRuns: 100 },
    );
  });

  it("finds the x-gap locations at and above any location, whatever was looked up before", () => {
    const segment = fc.constantFrom("a", "b", "~1", "");
    const pointer = fc.array(segment, { maxLength: 6 }).map((s) => s.map((t) => `/${t}`).join(""));
    fc.assert(
      fc.property(
        fc.array(pointer, { maxLength: 8 }),
        fc.array(pointer, { maxLength: 12 }),
        (gaps, asked) => {
          const gapWalker = new SchemaWalker({}, new Set(gaps));
          for (const p of asked) {
            const prefixes = [...p.matchAll(/\//g)].map((m) => p.slice(0, m.index)).filter((x) => x !== "");
            const want = [...prefixes, p].filter((x) => gaps.includes(x));
            expect(gapWalker.gapsAt(p)).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
    // A pointer of any length is looked up without recursion.
    const deep = "/a".repeat(100_000);
    expect(new SchemaWalker({}, new Set(["/a", deep])).gapsAt(deep)).toEqual(["/a", deep]);
  });

  it("records what a node at the depth bound holds, and walks nothing below it", () => {
    // A chain of 80 schemas, each naming the next: a value as deep reaches the first 65 (depths 0 to 64).
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 80; i++)
      schemas[`L${i}`] = { type: "object", properties: { next: { $ref: `#/components/schemas/L${i + 1}` } } };
    const chain = new SchemaWalker({ components: { schemas } });
    let value: unknown = {};
    for (let i = 0; i < 80; i++) value = { next: value };
    const s = sinks();
    chain.walk(chain.at("/components/schemas/L0"), value, s);
    expect(s.members.size).toBe(65);
    expect(s.members.has("/components/schemas/L64/properties/next")).toBe(true);
    expect(s.members.has("/components/schemas/L65/properties/next")).toBe(false);
  });
});

describe("webhook deliveries", () => {
  it("record each event delivered and the members of its payload", async () => {
    const seen = new SeenLocations();
    const checker = await createWebhookChecker({ coverage: seen });
    const example = messageExamples(loadAsyncApi()).find((e) => e.channel === "biometricWebhook");
    if (!example) throw new Error("no example delivery of biometricWebhook");
    const headers = Object.fromEntries(
      Object.entries({ "Content-Type": "application/json", ...(example.headers ?? {}) }).map(([k, v]) => [
        k.toLowerCase(),
        String(v),
      ]),
    );
    const delivery: Exchange = {
      index: 0,
      request: {
        method: "POST",
        path: "/hooks",
        query: {},
        headers,
        body: { kind: "text", text: JSON.stringify(example.payload) },
      },
    };
    checker.checkDelivery(delivery);
    expect([...seen.of("events")]).toEqual([`/channels/biometricWebhook/messages/${example.message}`]);
    expect(seen.of("members").size).toBeGreaterThan(0);
    for (const location of seen.of("members")) expect(location).toMatch(/\/properties\/[^/]+$/);
  });
});

describe("a report's universe", () => {
  it("is the same made from what a run's hooks built as from the contract alone", async () => {
    const document = loadOpenApi();
    const checker = await openConformanceChecker({ spec: document, coverage: new SeenLocations() });
    for (const { exchange } of examples) checker.checkExchange(exchange);
    expect(httpUniverse(document)).toEqual(httpUniverse(structuredClone(document)));
    const asyncapi = loadAsyncApi();
    const hooks = await createWebhookChecker({ spec: asyncapi, coverage: new SeenLocations() });
    for (const example of messageExamples(asyncapi))
      hooks.checkDelivery({
        index: 0,
        request: {
          method: "POST",
          path: "/hooks",
          query: {},
          headers: { "content-type": "application/json" },
          body: { kind: "text", text: JSON.stringify(example.payload) },
        },
      });
    expect(webhookUniverse(asyncapi)).toEqual(webhookUniverse(structuredClone(asyncapi)));
  });
});

describe("the CLI with --jobs", () => {
  it("merges what each worker reached into the report a single thread makes", async () => {
    const corpus = examples.map((e) => e.exchange);
    const files = [0, 1, 2].map((i) =>
      writeNdjson(
        dir,
        `j${i}.ndjson`,
        corpus.filter((_, n) => n % 3 === i),
      ),
    );
    const [one, two] = [join(dir, "one.json"), join(dir, "two.json")];
    expect((await runMain(["check", ...files, "--coverage", one as string])).status).toBe(0);
    expect((await runMain(["check", ...files, "--jobs", "2", "--coverage", two as string])).status).toBe(0);
    expect(readFileSync(two as string, "utf8")).toBe(readFileSync(one as string, "utf8"));
  });
});

describe("a hostile coverage file", () => {
  it("is a report or an InputError naming the file, never another error and never a quoted value", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(...PROTOTYPE_KEYS), (value, key) => {
        for (const text of [
          JSON.stringify(value),
          `{"version":1,"command":"check","${key}":${JSON.stringify(value)}}`,
        ]) {
          try {
            parseReport(text, "shard.json");
          } catch (error) {
            expect(error).toBeInstanceOf(InputError);
            expect((error as InputError).where).toBe("shard.json");
            expect(containsCanary((error as Error).message)).toBe(false);
          }
        }
        expect(({} as Record<string, unknown>).version).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});
