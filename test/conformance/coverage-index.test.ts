// The build-time coverage index (generated/coverage-index.js): fresh, used for the bundled contracts,
// the same as what a run works out without it, and never trusted for another contract or in another
// shape.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  indexedCoverage,
  loadCoverageIndex,
  readIndexEntry,
} from "../../conformance/coverage/coverage-index.js";
import {
  httpGapLocations,
  searchHttpGaps,
  searchWebhookGaps,
  webhookGapLocations,
} from "../../conformance/coverage/gaps.js";
import { httpUniverse, workOutHttpUniverse } from "../../conformance/coverage/universe.js";
import { webhookUniverse, workOutWebhookUniverse } from "../../conformance/coverage/webhook-universe.js";
import { bundledContract } from "../../conformance/checks/load-contract.js";
import { bundledAsyncApi } from "../../conformance/checks/webhooks.js";
import { buildCoverageIndexModule } from "../../scripts/lib/coverage-index-module.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import type { Json } from "../../src/contract/json.js";

const openapi = bundledContract();
const asyncapi = bundledAsyncApi();

beforeAll(() => loadCoverageIndex());

describe("generated/coverage-index.js", () => {
  it("is fresh: made again from the bundled contracts, it is the same text", () => {
    const committed = readFileSync(fromRoot("generated/coverage-index.js"), "utf8");
    const source = "generated/openapi.json and generated/asyncapi.json";
    expect(
      committed.startsWith(`// Generated from ${source} by \`npm run build:conformance\`. Do not edit`),
    ).toBe(true);
    const fresh = buildCoverageIndexModule(openapi, asyncapi, source) === committed;
    expect(fresh, "generated/coverage-index.js is stale: run npm run build:conformance").toBe(true);
  });

  it("is what a run reads for the bundled contracts, and what the contracts give when worked out", () => {
    const http = indexedCoverage(openapi, "openapi");
    const webhooks = indexedCoverage(asyncapi, "asyncapi");
    expect(http).toBeDefined();
    expect(webhooks).toBeDefined();
    // The very sets of the index: the contract was not searched.
    expect(httpGapLocations(openapi)).toBe(http?.gaps);
    expect(webhookGapLocations(asyncapi)).toBe(webhooks?.gaps);
    expect(httpGapLocations(openapi)).toEqual(searchHttpGaps(openapi));
    expect(webhookGapLocations(asyncapi)).toEqual(searchWebhookGaps(asyncapi));
    expect(httpUniverse(openapi)).toEqual(workOutHttpUniverse(openapi));
    expect(webhookUniverse(asyncapi)).toEqual(workOutWebhookUniverse(asyncapi));
    expect(httpUniverse(openapi).get("operations")?.size).toBeGreaterThan(10);
  });

  it("gives each report a universe of its own", () => {
    const first = httpUniverse(openapi);
    first.get("operations")?.clear();
    expect(httpUniverse(openapi).get("operations")?.size).toBeGreaterThan(10);
  });

  it("is not used for another contract: a gap added to a copy is found", () => {
    const changed = structuredClone(openapi) as Json;
    changed.paths["/api/v2/send_text"].post["x-gap"] = { document: "not shown", choice: "a test's" };
    expect(indexedCoverage(changed, "openapi")).toBeUndefined();
    expect(httpGapLocations(changed)).toContain("/paths/~1api~1v2~1send_text/post");
    expect(httpUniverse(changed).get("gaps")).toContain("/paths/~1api~1v2~1send_text/post");
    expect(httpGapLocations(openapi)).not.toContain("/paths/~1api~1v2~1send_text/post");
  });
});

describe("an index entry read", () => {
  const good = {
    sha256: "0".repeat(64),
    universe: { events: ["/e"], members: [], branches: [], enums: [], gaps: ["/a"] },
  };

  it("keeps an entry of the shape it reads", () => {
    const entry = readIndexEntry(good, "asyncapi");
    expect(entry?.gaps).toEqual(new Set(["/a"]));
    expect(entry?.universe.get("events")).toEqual(new Set(["/e"]));
  });

  it("refuses any other shape, and never throws", () => {
    const anything = fc.anything({ withNullPrototype: true, withObjectString: true, maxDepth: 3 });
    const damaged = fc.record({
      sha256: fc.oneof(fc.string(), anything),
      universe: fc.oneof(
        fc.dictionary(fc.constantFrom("events", "members", "__proto__"), anything),
        anything,
      ),
    });
    fc.assert(
      fc.property(fc.oneof(anything, damaged), fc.constantFrom("openapi", "asyncapi"), (value, format) => {
        const entry = readIndexEntry(value, format);
        if (entry === undefined) return;
        // Kept only when every kind is a list of strings.
        for (const locations of entry.universe.values())
          for (const location of locations) expect(typeof location).toBe("string");
        expect(entry.universe.size).toBe(format === "openapi" ? 9 : 5);
      }),
      { numRuns: 500 },
    );
    expect(
      readIndexEntry({ ...good, universe: { ...good.universe, events: [1] } }, "asyncapi"),
    ).toBeUndefined();
    expect(readIndexEntry({ ...good, sha256: 1 }, "asyncapi")).toBeUndefined();
    expect(readIndexEntry(good, "openapi")).toBeUndefined();
  });
});
