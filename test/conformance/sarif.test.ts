// The SARIF report is a valid SARIF 2.1.0 log (the schema Microsoft ships with its SARIF SDK), with one
// result per finding, a rule per check, the traffic file's line or entry, and the contract's part.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { buildIndependentCorpus } from "../../bench/corpus-independent.js";
import { main } from "../../conformance/cli.js";
import { contractPointer } from "../../conformance/findings/contract-location.js";
import { physicalPointer } from "../../conformance/findings/contract-source.js";
import type { EntryResult, Finding } from "../../conformance/findings/findings.js";
import { CHECK_NAMES } from "../../conformance/findings/rules.js";
import { fileUri } from "../../conformance/findings/sarif.js";
import { messageExamples } from "../../scripts/contract/asyncapi-validate.js";
import { loadAsyncApi, loadOpenApi } from "../support/contract.js";
import type { Json } from "../../src/contract/json.js";
import { validateSarif } from "./support/sarif-schema.js";

const validate = validateSarif;

const doc = loadOpenApi();
const dir = mkdtempSync(join(tmpdir(), "idv-sarif-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const corpus = join(dir, "corpus.ndjson");
writeFileSync(
  corpus,
  `${buildIndependentCorpus(doc, 40, 7)
    .entries.map((e) => e.line)
    .join("\n")}\n`,
);

/** Run the CLI and give its exit status and stdout. */
async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _e, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await main(argv, { stdout: sink((s) => (out += s)), stderr: sink(() => undefined) });
  return { code, out };
}

/** The value a JSON pointer names. */
const at = (document: Json, pointer: string): Json =>
  pointer
    .split("/")
    .slice(1)
    .reduce((node, t) => node?.[t.replace(/~1/g, "/").replace(/~0/g, "~")], document);

describe("--format sarif", () => {
  it("is a valid SARIF 2.1.0 log, one result per finding of the JSON report", async () => {
    const file = relative(process.cwd(), corpus);
    const sarif = await run(["check", file, "--format", "sarif"]);
    const json = JSON.parse((await run(["check", file, "--format", "json"])).out);
    expect(sarif.code).toBe(1);
    const log = JSON.parse(sarif.out);
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    // The schema can refuse: a result without a message is not SARIF.
    const broken = structuredClone(log);
    delete broken.runs[0].results[0].message;
    expect(validate(broken)).toBe(false);
    const findings = json.entries.flatMap((e: Json) => [...e.violations, ...e.warnings]);
    expect(findings.length).toBeGreaterThan(5);
    const results = log.runs[0].results;
    expect(results).toHaveLength(findings.length);
    const rules = log.runs[0].tool.driver.rules;
    expect(rules.map((r: Json) => r.id)).toEqual(CHECK_NAMES);
    for (const r of rules) expect(r.shortDescription.text && r.help.text && r.helpUri).toBeTruthy();
    for (const result of results) {
      expect(rules[result.ruleIndex].id).toBe(result.ruleId);
      // On the contract's source line; the exchange, the traffic file's line, is related.
      const physical = result.locations[0].physicalLocation;
      expect(physical.artifactLocation.uri).toMatch(/^openapi\//);
      expect(physical.region.startLine).toBeGreaterThan(0);
      const traffic = result.relatedLocations[0].physicalLocation;
      expect(traffic.artifactLocation.uri).toBe(fileUri(file));
      expect(traffic.region.startLine).toBeGreaterThan(0);
    }
  });

  it("points at a part of the bundled contract that exists", async () => {
    const log = JSON.parse((await run(["check", corpus, "--format", "sarif"])).out);
    const pointers = log.runs[0].results.flatMap((r: Json) =>
      (r.relatedLocations ?? []).flatMap((l: Json) => l.properties?.jsonPointer ?? []),
    );
    expect(pointers.some((p: string) => p.startsWith("/paths/~1"))).toBe(true);
    // A pointer may pass through the bundle's $refs (a request schema's member): followed, it exists.
    for (const p of pointers) expect(at(doc, physicalPointer(doc, p)), p).toBeDefined();
    const related = log.runs[0].results.find((r: Json) => r.relatedLocations).relatedLocations[1];
    expect(related.physicalLocation.artifactLocation).toEqual({
      uri: "generated/openapi.json",
      uriBaseId: "CONTRACT_PACKAGE_ROOT",
    });
  });

  it("names a HAR entry as a logical location, and a --spec contract as given", async () => {
    const har = {
      log: {
        version: "1.2",
        creator: { name: "t", version: "1" },
        entries: [
          {
            startedDateTime: "2026-01-01T00:00:00Z",
            time: 1,
            request: {
              method: "GET",
              url: "https://idv.example.com/api/v4/nowhere",
              httpVersion: "HTTP/1.1",
              headers: [],
              queryString: [],
              cookies: [],
              headersSize: -1,
              bodySize: 0,
            },
            response: {
              status: 200,
              statusText: "OK",
              httpVersion: "HTTP/1.1",
              headers: [],
              cookies: [],
              content: { size: 0, mimeType: "application/json" },
              redirectURL: "",
              headersSize: -1,
              bodySize: 0,
            },
            cache: {},
            timings: { send: 0, wait: 0, receive: 0 },
          },
        ],
      },
    };
    const file = join(dir, "one entry.har");
    writeFileSync(file, JSON.stringify(har));
    // Another contract than the bundled one (a copy of it would be placed on its source lines).
    const spec = join(dir, "contract.json");
    writeFileSync(spec, JSON.stringify({ ...doc, info: { ...doc.info, title: "Another" } }));
    const log = JSON.parse((await run(["check", file, "--spec", spec, "--format", "sarif"])).out);
    expect(validate(log)).toBe(true);
    const [result] = log.runs[0].results;
    expect(result.ruleId).toBe("route_known");
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toMatch(
      /^file:\/\/.*one%20entry\.har$/,
    );
    expect(result.locations[0].logicalLocations[0].fullyQualifiedName).toBe("log.entries[0]");
    expect(result.relatedLocations[0].physicalLocation.artifactLocation.uri).toBe(fileUri(spec));
    expect(result.relatedLocations[0].properties.jsonPointer).toBe("/paths");
  });

  it("gives the nearest contract location that exists, never one the contract does not have", () => {
    const entry = (operationId: string | null, path: string): EntryResult => ({
      index: 0,
      method: "POST",
      path,
      operationId,
      ok: false,
      violations: [],
      warnings: [],
    });
    const finding = (check: Finding["check"]): Finding => ({
      in: "request.header",
      check,
      pointer: "",
      message: "",
    });
    const document = {
      security: [{ key: [] }],
      paths: {
        "/a/{id}": { post: { operationId: "a", responses: {} } },
        "/b": { get: {} },
        "/c/{id}": { parameters: [], get: { operationId: "c" } },
      },
    };
    const a = entry("a", "/a/{id}");
    expect(contractPointer("openapi", a, finding("status_code_documented"), document)).toBe(
      "/paths/~1a~1{id}/post/responses",
    );
    // Security inherited from the document's root; parameters the operation does not write.
    expect(contractPointer("openapi", a, finding("auth_headers_present"), document)).toBe("/security");
    expect(contractPointer("openapi", a, finding("request_parameters"), document)).toBe(
      "/paths/~1a~1{id}/post",
    );
    const c = { ...entry("c", "/c/{id}"), method: "GET" };
    expect(contractPointer("openapi", c, finding("request_parameters"), document)).toBe(
      "/paths/~1c~1{id}/parameters",
    );
    // A path the contract writes, without the method; one it does not write; an unreadable entry.
    expect(contractPointer("openapi", entry(null, "/b"), finding("route_known"), document)).toBe(
      "/paths/~1b",
    );
    expect(contractPointer("openapi", entry(null, "/{…}/b"), finding("route_known"), document)).toBe(
      "/paths",
    );
    expect(contractPointer("openapi", a, finding("entry_readable"), document)).toBeUndefined();
    // Without the document (it could not be read), the part the check judges.
    expect(contractPointer("openapi", a, finding("request_parameters"))).toBe(
      "/paths/~1a~1{id}/post/parameters",
    );
  });

  it("points a webhook delivery at its message in the bundled AsyncAPI contract", async () => {
    const asyncapi = loadAsyncApi();
    const lines = messageExamples(asyncapi).map((e) => {
      const payload = structuredClone(e.payload) as Json;
      // A member of the wrong type: a payload_schema violation on a known message.
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
    const file = join(dir, "deliveries.ndjson");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const log = JSON.parse((await run(["webhooks", file, "--format", "sarif"])).out);
    expect(validate(log)).toBe(true);
    const related = log.runs[0].results.flatMap((r: Json) =>
      (r.relatedLocations ?? []).filter((l: Json) => l.properties?.jsonPointer !== undefined),
    );
    expect(related.length).toBeGreaterThan(0);
    expect(related[0].physicalLocation.artifactLocation.uri).toBe("generated/asyncapi.json");
    const pointers = related.map((l: Json) => l.properties.jsonPointer);
    // The message, and below it the payload member the delivery broke.
    expect(pointers.some((p: string) => /^\/channels\/[^/]+\/messages\/[^/]+\/payload\//.test(p))).toBe(true);
    for (const p of pointers) expect(at(asyncapi, physicalPointer(asyncapi, p)), p).toBeDefined();
  });
});
