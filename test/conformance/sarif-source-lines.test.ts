// SARIF that code scanning can place: against the bundled contract, each result is on the contract's
// own source line (openapi/…yaml, asyncapi/…yaml: a file of the repository, a line and a column),
// with the exchange as a related location; against another contract, today's location and a note.
// GitHub's ingestion rules checked here: a result has a physicalLocation whose artifactLocation.uri
// is a file of the repository, and a region with startLine ≥ 1.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { buildIndependentCorpus } from "../../bench/corpus-independent.js";
import { messageExamples } from "../../scripts/contract/asyncapi-validate.js";
import { buildContractSourcesModule } from "../../scripts/lib/contract-sources-module.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { schemaMember } from "../../conformance/findings/contract-detail.js";
import {
  loadSourceTables,
  physicalPointer,
  type SourceTable,
  sourceLine,
} from "../../conformance/findings/contract-source.js";
import { loadAsyncApi, loadOpenApi, type Json } from "../support/contract.js";
import { runMain } from "./support/in-process.js";

const openapi = loadOpenApi();
const asyncapi = loadAsyncApi();
const dir = mkdtempSync(join(tmpdir(), "idv-sarif-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const version = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")).version;

const V4_AUTH = { "svc-api-key": "k", "svc-date": "2026-01-01T00:00:00Z", "svc-signature": "s" };

/** One NDJSON line of an exchange. */
const exchange = (
  method: string,
  path: string,
  body: unknown,
  status: number,
  response: unknown,
  headers: Record<string, string> = V4_AUTH,
) =>
  JSON.stringify({
    request: {
      method,
      url: `https://idv.example.com${path}`,
      headers: { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
    response: {
      status,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(response),
    },
  });

/** A traffic file in the temporary folder, and the SARIF log of `check` (or `webhooks`) on it. */
async function sarifOf(lines: string[], args: string[] = [], command = "check"): Promise<Json> {
  const file = join(dir, `traffic-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  const { stdout } = await runMain([command, relative(process.cwd(), file), "--format", "sarif", ...args]);
  return JSON.parse(stdout);
}

/** The 1-based line of a file where `text` is (the first), and its column. */
function placeOf(file: string, text: RegExp): { line: number; column: number } {
  const lines = readFileSync(fromRoot(file), "utf8").split("\n");
  const line = lines.findIndex((l) => text.test(l));
  return { line: line + 1, column: (lines[line]?.search(/\S/) ?? 0) + 1 };
}

/** GitHub's rules, and ours: a repository file, a line and column there, and the exchange beside it. */
function expectPlaced(result: Json) {
  const physical = result.locations[0].physicalLocation;
  expect(physical.artifactLocation.uriBaseId).toBe("%SRCROOT%");
  const file = decodeURIComponent(physical.artifactLocation.uri);
  expect(file).toMatch(/^(openapi|asyncapi)\/.+\.yaml$/);
  expect(existsSync(fromRoot(file)), file).toBe(true);
  expect(physical.region.startLine).toBeGreaterThanOrEqual(1);
  expect(physical.region.startColumn).toBeGreaterThanOrEqual(1);
  const lines = readFileSync(fromRoot(file), "utf8").split("\n");
  expect(physical.region.startLine).toBeLessThanOrEqual(lines.length);
  expect(result.relatedLocations[0].logicalLocations[0].kind).toBe("element");
}

describe("SARIF on the contract's source lines", () => {
  it("puts a request member on its line in the schema's own file, the exchange related", async () => {
    const log = await sarifOf([
      exchange(
        "POST",
        "/api/v4/pep_checks",
        { reference: "r", date_of_birth: 19850414, firstname: "A", lastname: "B" },
        422,
        { error_code: "NOT_CREATED", message: "invalid" },
      ),
    ]);
    const result = log.runs[0].results.find((r: Json) => r.ruleId === "request_body_schema");
    expect(result).toBeDefined();
    expectPlaced(result);
    const physical = result.locations[0].physicalLocation;
    expect(physical.artifactLocation.uri).toBe("openapi/components/schemas/PepCheckRequest.yaml");
    const { line, column } = placeOf("openapi/components/schemas/PepCheckRequest.yaml", /^\s+date_of_birth:/);
    expect(physical.region).toEqual({ startLine: line, startColumn: column });
    const [traffic, contract] = result.relatedLocations;
    expect(traffic.physicalLocation.artifactLocation.uri).toMatch(/traffic-\w+\.ndjson$/);
    expect(traffic.physicalLocation.region).toEqual({ startLine: 1 });
    expect(contract.properties.jsonPointer).toBe(
      "/paths/~1api~1v4~1pep_checks/post/requestBody/content/application~1json/schema/properties/date_of_birth",
    );
    expect(contract.physicalLocation.artifactLocation.uri).toBe("generated/openapi.json");
  });

  it("puts a response member on the line of the documented response's schema", async () => {
    const log = await sarifOf([
      exchange(
        "POST",
        "/api/v4/pep_checks",
        { reference: "r", date_of_birth: "14/03/1985", firstname: "A", lastname: "B" },
        200,
        {
          id: "not an integer",
          reference: "r",
          firstname: "A",
          lastname: "B",
          date_of_birth: "1985-03-14",
          is_pep_watchlist_clear: true,
          created_at: "2026-01-01T00:00:00Z",
        },
      ),
    ]);
    const result = log.runs[0].results.find(
      (r: Json) => r.ruleId === "response_body_schema" && r.properties.pointer === "/id",
    );
    expect(result).toBeDefined();
    expectPlaced(result);
    const physical = result.locations[0].physicalLocation;
    expect(physical.artifactLocation.uri).toBe("openapi/components/schemas/PepCheck.yaml");
    const { line, column } = placeOf("openapi/components/schemas/PepCheck.yaml", /^\s+id:/);
    expect(physical.region).toEqual({ startLine: line, startColumn: column });
  });

  it("places every result of a broad corpus, and every webhook delivery's", async () => {
    const corpus = buildIndependentCorpus(openapi, 40, 7).entries.map((e) => e.line);
    const log = await sarifOf(corpus);
    const results = log.runs[0].results;
    expect(results.length).toBeGreaterThan(5);
    for (const result of results) expectPlaced(result);
    expect(log.runs[0].invocations).toBeUndefined();
    const deliveries = messageExamples(asyncapi).map((e) => {
      const payload = structuredClone(e.payload) as Json;
      if (payload && typeof payload === "object") payload.transaction_id = 7;
      return JSON.stringify({
        request: {
          method: "POST",
          url: "https://receiver.example.com/events",
          headers: { "content-type": "application/json", ...(e.headers ?? {}) },
          body: JSON.stringify(payload),
        },
        response: { status: 200, headers: {} },
      });
    });
    const webhooks = (await sarifOf(deliveries, [], "webhooks")).runs[0].results;
    expect(webhooks.length).toBeGreaterThan(0);
    // A payload's members are placed where they are written: the openapi/ schemas the messages share.
    for (const result of webhooks) expectPlaced(result);
  });

  it("names the tool's version and where it is explained", async () => {
    const log = await sarifOf([]);
    const driver = log.runs[0].tool.driver;
    expect(driver).toMatchObject({ name: "idv-conformance", version, semanticVersion: version });
    expect(driver.informationUri).toMatch(/^https:\/\//);
    for (const rule of driver.rules) expect(rule.helpUri).toMatch(/^https:\/\/.+#checks$/);
    expect(Object.keys(log.runs[0].originalUriBaseIds)).toContain("%SRCROOT%");
  });

  it("falls back to the traffic file for another --spec contract, and says so; a copy of the bundle is placed", async () => {
    const other = structuredClone(openapi);
    other.info.title = "Another contract";
    const spec = join(dir, "other.json");
    writeFileSync(spec, JSON.stringify(other));
    const line = exchange("POST", "/api/v4/pep_checks", { reference: 1 }, 200, {});
    const log = await sarifOf([line], ["--spec", spec]);
    const [notification] = log.runs[0].invocations[0].toolConfigurationNotifications;
    expect(notification.level).toBe("note");
    expect(notification.message.text).toMatch(/--spec .*not the bundled one/);
    for (const result of log.runs[0].results) {
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toMatch(/traffic-\w+\.ndjson$/);
      expect(result.relatedLocations[0].properties.jsonPointer).toMatch(/^\/paths\/~1api~1v4~1pep_checks/);
    }
    const copy = join(dir, "copy.json");
    writeFileSync(copy, JSON.stringify(openapi));
    const placed = await sarifOf([line], ["--spec", copy]);
    expect(placed.runs[0].invocations).toBeUndefined();
    for (const result of placed.runs[0].results) expectPlaced(result);
  });
});

describe("generated/contract-sources.js", () => {
  it("is fresh: made again from the bundles and their sources, it is the same text", () => {
    const committed = readFileSync(fromRoot("generated/contract-sources.js"), "utf8");
    const source = "generated/openapi.json, generated/asyncapi.json and their sources";
    const fresh = buildContractSourcesModule(openapi, asyncapi, source) === committed;
    expect(fresh, "generated/contract-sources.js is stale: run npm run build:conformance").toBe(true);
  });

  it("places each part on the line of its key, its list item, or its own file's first line", async () => {
    const tables = await loadSourceTables();
    for (const table of [tables.openapi, tables.asyncapi] as SourceTable[]) {
      expect(table).toBeDefined();
      const texts = table.files.map((f) => readFileSync(fromRoot(f), "utf8").split("\n"));
      for (const [pointer, [file, line, column]] of Object.entries(table.at)) {
        const whole = texts[file]![line - 1]!;
        const text = whole.slice(column - 1);
        const last = pointer
          .slice(pointer.lastIndexOf("/") + 1)
          .replace(/~1/g, "/")
          .replace(/~0/g, "~");
        const atKey =
          text.startsWith(`${last}:`) || text.startsWith(`"${last}":`) || text.startsWith(`'${last}':`);
        // An item starts after its dash (or in a flow list, after `[` or `,`).
        const atItem = /^\d+$/.test(last) && /[-[,]$/.test(whole.slice(0, column - 1).trimEnd());
        const atFile = line === 1 && column === 1;
        expect(atKey || atItem || atFile, `${pointer} at ${table.files[file]}:${line}:${column}`).toBe(true);
      }
    }
  });
});

describe("following a pointer through a contract", () => {
  const table: SourceTable = {
    sha256: "",
    files: ["a.yaml"],
    at: { "": [0, 1, 1], "/components": [0, 2, 1] },
  };
  // $refs in a cycle, to themselves, and members a prototype has.
  const cyclic = {
    components: {
      a: { $ref: "#/components/b" },
      b: { $ref: "#/components/a" },
      c: { $ref: "#/components/c" },
    },
    paths: { "/x": { $ref: "#/components/a" } },
  };

  it("ends on cycles and any pointer, never leaving the table's files", () => {
    const token = fc.oneof(
      fc.constantFrom(
        "components",
        "a",
        "b",
        "c",
        "paths",
        "~1x",
        "__proto__",
        "constructor",
        "0",
        "$ref",
        "properties",
      ),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const pointer = tokens.map((t) => `/${t}`).join("");
        const found = sourceLine(table, cyclic, pointer);
        expect(found === undefined || found.uri === "a.yaml").toBe(true);
        expect(typeof physicalPointer(cyclic, pointer)).toBe("string");
        expect(typeof schemaMember(cyclic, "/components/a", pointer)).toBe("string");
      }),
    );
  });
});
