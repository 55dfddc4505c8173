// Coverage of the contract: what checked traffic reached, as contract locations only; reports of
// any split of a corpus merge into the report of the whole; workers' coverage merges the same way.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { checkInWorkers } from "../../conformance/run/worker-pool.js";
import { SeenLocations } from "../../conformance/coverage/seen.js";
import { buildReport, type CoverageReport, mergeReports } from "../../conformance/coverage/report.js";
import { httpUniverse, identityOf } from "../../conformance/coverage/universe.js";
import { parseReport } from "../../conformance/coverage/read-report.js";
import { unescapeToken } from "../../src/contract/json-pointer.js";
import type { Exchange } from "../../conformance/traffic/exchange.js";
import { CANARIES, containsCanary } from "../support/hostile.js";
import { tempDir, writeNdjson } from "./support/cli.js";
import { bodyJson, contract, example, examples, jsonText } from "./support/exchanges.js";
import { runMainOrBinary } from "./support/in-process.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seen = new SeenLocations();
const checker = await openConformanceChecker({ coverage: seen });
const universe = httpUniverse(contract);
const identity = identityOf(contract, "openapi");
const corpus: Exchange[] = examples.map((e) => e.exchange);

/** The report of some exchanges, checked by the one checker (its coverage taken after). */
function reportOf(exchanges: Exchange[]): CoverageReport {
  seen.take();
  for (const exchange of exchanges) checker.checkExchange(exchange);
  const part = new SeenLocations();
  part.merge(seen.take());
  return buildReport("check", identity, universe, part);
}

/** The node a JSON pointer names in the contract. */
const at = (pointer: string): unknown =>
  pointer
    .slice(1)
    .split("/")
    .map(unescapeToken)
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], contract);

describe("what a report counts", () => {
  const whole = reportOf(corpus);

  it("names only locations of the contract, sorted, and counts them", () => {
    for (const [kind, k] of Object.entries(whole.kinds)) {
      expect(k.total, kind).toBe(k.seen.length + k.unseen.length);
      expect(k.covered, kind).toBe(k.seen.length);
      for (const list of [k.seen, k.unseen]) expect(list, kind).toEqual([...list].sort());
      for (const location of [...k.seen, ...k.unseen]) expect(at(location), location).toBeDefined();
    }
    expect(whole.version).toBe(1);
    expect(whole.contract.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("records the status, the request members and the enum values an exchange has", () => {
    const exchange = example("createPepCheck");
    const body = bodyJson(exchange.request.body);
    const report = reportOf([exchange]);
    const op = "/paths/~1api~1v4~1pep_checks/post";
    expect(report.kinds.operations?.seen).toEqual([op]);
    expect(report.kinds.statuses?.seen).toEqual([`${op}/responses/200`]);
    expect(report.kinds.statuses?.unseen).toContain(`${op}/responses/422`);
    const members = report.kinds["request-members"]!.seen;
    // Each member the request body has is seen, under the schema that describes it.
    for (const name of Object.keys(body))
      expect(
        members.some((m) => m.endsWith(`/properties/${name}`)),
        name,
      ).toBe(true);
    expect(report.kinds.security?.seen.length).toBeGreaterThan(0);
  });

  it("tells which oneOf branch a body took, and an enum value by its place in the enum", () => {
    const ops = corpus.filter((e) => e.request.path === "/api/v4/properties" && e.request.method === "POST");
    const report = reportOf(ops);
    expect(report.kinds.branches?.seen).toContain(
      "/paths/~1api~1v4~1properties/post/requestBody/content/application~1json/schema/oneOf/0",
    );
    for (const location of report.kinds.enums!.seen) expect(location).toMatch(/\/enum\/[0-9]+$/);
  });

  it("holds no recorded value: a body full of canaries leaves none in the report", () => {
    const exchange = example("createPepCheck");
    const body = bodyJson(exchange.request.body);
    for (const [i, key] of Object.keys(body).entries()) body[key] = CANARIES[i % CANARIES.length];
    body[CANARIES[0]] = CANARIES[1];
    body.__proto__ = { [CANARIES[2]]: CANARIES[3] };
    exchange.request.body = jsonText(body);
    exchange.request.query = { [CANARIES[4]]: [CANARIES[0]] };
    const text = JSON.stringify(reportOf([exchange]));
    expect(containsCanary(text)).toBe(false);
  });
});

describe("merging", () => {
  const whole = reportOf(corpus);

  it("the reports of any split of the corpus merge into the report of the whole", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(3), { minLength: corpus.length, maxLength: corpus.length }), (parts) => {
        const reports = [0, 1, 2, 3].map((p) => ({
          file: `part-${p}.json`,
          report: reportOf(corpus.filter((_, i) => parts[i] === p)),
        }));
        expect(mergeReports(reports)).toEqual(whole);
        // Merging is also order-free and idempotent.
        expect(mergeReports([...reports].reverse().concat(reports))).toEqual(whole);
      }),
      { numRuns: 25 },
    );
  });

  it("refuses a report of another contract version or digest, naming the file", () => {
    const other = structuredClone(whole);
    other.contract.digest = `sha256:${"0".repeat(64)}`;
    expect(() =>
      mergeReports([
        { file: "a.json", report: whole },
        { file: "b.json", report: other },
      ]),
    ).toThrow(/^b\.json: is coverage of another contract/);
    const older = structuredClone(whole);
    older.contract.version = "0.9.0";
    expect(() =>
      mergeReports([
        { file: "a.json", report: whole },
        { file: "c.json", report: older },
      ]),
    ).toThrow(/^c\.json: is coverage of another contract \(version 0\.9\.0/);
  });

  it("reads back exactly what it writes, and refuses what is not a report of this version", () => {
    const text = JSON.stringify(whole);
    expect(parseReport(text, "r.json")).toEqual(whole);
    const bad: [unknown, RegExp][] = [
      [{ ...whole, version: 2 }, /^r\.json: is not a coverage report of version 1 \(its version: 2\)/],
      [[], /not a JSON object/],
      [{ ...whole, command: "probe" }, /command is neither/],
      [
        { ...whole, kinds: { ...whole.kinds, statuses: { ...whole.kinds.statuses, total: 1 } } },
        /kinds\.statuses: its counts do not match/,
      ],
      [
        { ...whole, kinds: { ...whole.kinds, enums: { ...whole.kinds.enums, seen: [CANARIES[0]] } } },
        /kinds\.enums\.seen holds something that is not a location/,
      ],
      [
        JSON.parse(
          `{"version":1,"command":"check","contract":${JSON.stringify(whole.contract)},"kinds":{"__proto__":{}}}`,
        ),
        /kinds\.operations is missing/,
      ],
    ];
    for (const [value, message] of bad) {
      let error: unknown;
      try {
        parseReport(JSON.stringify(value), "r.json");
      } catch (e) {
        error = e;
      }
      expect((error as Error).message).toMatch(message);
      expect(containsCanary(String(error))).toBe(false);
    }
  });
});

describe("in worker threads", () => {
  it("each worker's coverage of each file merges into that of the whole run", async () => {
    const files = [
      writeNdjson(dir, "w1.ndjson", corpus.slice(0, 40)),
      writeNdjson(dir, "w2.ndjson", corpus.slice(40, 90)),
      writeNdjson(dir, "w3.ndjson", corpus.slice(90)),
    ];
    const merged = new SeenLocations();
    const job = { command: "check" as const, basePaths: [], coverage: true };
    // One worker checks the three files in turn: what it posts after a file must not be lost after it.
    for await (const _ of checkInWorkers(1, files, job, undefined, undefined, {
      onCoverage: (lists) => merged.merge(lists),
    }));
    expect(buildReport("check", identity, universe, merged)).toEqual(whole());
  });
  const whole = () => reportOf(corpus);
});

describe("the CLI", () => {
  const a = writeNdjson(dir, "a.ndjson", corpus.slice(0, 60));
  const b = writeNdjson(dir, "b.ndjson", corpus.slice(60));

  it("check --coverage writes the report and ends a text report with its summary", async () => {
    const file = join(dir, "cov.json");
    const result = await runMainOrBinary(["check", a, b, "--coverage", file]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /\nCoverage of the contract \(.+\):\n {2}operations +\d+\/\d+ +\d+\.\d %\n/,
    );
    expect(result.stdout).toMatch(/^ {4}POST \/api\/v4\/pep_checks +statuses seen 200/m);
    const report = parseReport(readFileSync(file, "utf8"), file);
    expect(report).toEqual(reportOf(corpus));
    // The JSON report on stdout stays a JSON document.
    const json = await runMainOrBinary(["check", a, "--format", "json", "--coverage", join(dir, "c2.json")]);
    expect(() => JSON.parse(json.stdout)).not.toThrow();
  });

  it("coverage merge gives the coverage of both files' traffic", async () => {
    const [ca, cb, merged] = ["ca.json", "cb.json", "merged.json"].map((f) => join(dir, f));
    expect((await runMainOrBinary(["check", a, "--coverage", ca as string])).status).toBe(0);
    expect((await runMainOrBinary(["check", b, "--coverage", cb as string])).status).toBe(0);
    const result = await runMainOrBinary([
      "coverage",
      "merge",
      ca as string,
      cb as string,
      "--out",
      merged as string,
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Coverage of the contract/);
    expect(parseReport(readFileSync(merged as string, "utf8"), "m")).toEqual(reportOf(corpus));
  });

  it("coverage merge refuses a report of another contract: exit 2, naming the file", async () => {
    const mine = join(dir, "mine.json");
    await runMainOrBinary(["check", a, "--coverage", mine]);
    const other = JSON.parse(readFileSync(mine, "utf8"));
    other.contract.digest = `sha256:${"1".repeat(64)}`;
    const theirs = writeNdjson(dir, "theirs.json", [JSON.stringify(other)]);
    const result = await runMainOrBinary(["coverage", "merge", mine, theirs]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^idv-conformance: .*theirs\.json: is coverage of another contract/);
    expect(result.stdout).toBe("");
  });

  it("--min-coverage fails the run below a threshold, and passes it at or above", async () => {
    const low = await runMainOrBinary([
      "check",
      a,
      "--min-coverage",
      "statuses=100",
      "--min-coverage",
      "operations=1",
    ]);
    expect(low.status).toBe(1);
    expect(low.stderr).toMatch(
      /^idv-conformance: coverage of statuses is \d+\.\d %, below --min-coverage statuses=100\n$/,
    );
    const met = await runMainOrBinary(["check", a, b, "--min-coverage", "operations=100"]);
    expect(met.status).toBe(0);
  });

  it.each([
    ["statuss=50", /unknown kind statuss \(kinds of check: operations, statuses/],
    ["statuses=101", /--min-coverage statuses: 101 is not a percentage from 0 to 100/],
    ["statuses=half", /--min-coverage statuses: half is not a percentage/],
    ["statuses", /--min-coverage takes KIND=PCT/],
    ["events=10", /unknown kind events/],
  ])("--min-coverage %s is a usage error naming it (exit 2)", async (value, message) => {
    const result = await runMainOrBinary(["check", a, "--min-coverage", value]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n")[0]).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it("webhooks --coverage counts events and members delivered", async () => {
    const file = join(dir, "wh.json");
    const delivery: Exchange = {
      index: 0,
      request: {
        method: "POST",
        path: "/hooks",
        query: {},
        headers: { "content-type": "application/json" },
        body: jsonText({ event: "nothing-known" }),
      },
    };
    const input = writeNdjson(dir, "wh.ndjson", [delivery]);
    const result = await runMainOrBinary(["webhooks", input, "--coverage", file]);
    const report = parseReport(readFileSync(file, "utf8"), file);
    expect(report.command).toBe("webhooks");
    expect(Object.keys(report.kinds)).toEqual(["events", "members", "branches", "enums", "gaps"]);
    expect(report.kinds.events!.total).toBeGreaterThan(0);
    expect(result.stdout).toMatch(/\n {2}events +0\/\d+ +0\.0 %\n/);
  });
});
