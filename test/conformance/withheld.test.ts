// Where no stand-in is judged as the value was, the entry withholds the location and carries the live
// findings there; `check` reports that location as withheld with those findings: never a violation
// the stand-in alone makes, never a pass the value did not earn. The member is input like the rest of
// the file: anything malformed in it is refused with a line that says where.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EntryResult } from "../../conformance/findings/findings.js";
import { recordedMessage, WITHHELD_CHECK } from "../../conformance/findings/withheld.js";
import { HarRecorder, type HarExchange } from "../../conformance/proxy/har.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { loadOpenApi } from "../support/contract.js";
import { CANARIES } from "../support/hostile.js";
import { checkRecording } from "./support/recording.js";
import { runMain } from "./support/in-process.js";

const doc = loadOpenApi();
const checker = await openConformanceChecker({ spec: doc });
const dir = mkdtempSync(join(tmpdir(), "idv-withheld-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A GET of a case by an id past 2^53: the path parameter is not an integer the contract takes. */
const exchange = (verdict: EntryResult): HarExchange => ({
  startedAt: new Date(0),
  durationMs: 1,
  method: "GET",
  target: { origin: "http://127.0.0.1:1", pathname: "/api/v4/outsource_cases/90071992547409931", query: "" },
  request: { headers: [], size: 0 },
  status: 404,
  response: { headers: [], size: 0 },
  verdict,
});

/** Record one exchange with the given live verdict; the file. */
async function record(verdict: EntryResult): Promise<string> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.har`);
  const recorder = await HarRecorder.open(file, doc, { checker });
  recorder.add(exchange(verdict));
  await recorder.close();
  return file;
}

const base = { index: 0, method: "GET", path: "/api/v4/outsource_cases/{id}", operationId: "getEddCase" };

describe("a withheld location", () => {
  it("is reported with the live findings, not the stand-in's, and the live verdict stands", async () => {
    // The live check (say, of another revision of the contract) found only that the parameter is not
    // an integer; the recording is judged otherwise (the credentials missing, the status undocumented).
    const live: EntryResult = {
      ...base,
      ok: false,
      violations: [
        {
          in: "request.parameter",
          check: "request_parameters",
          pointer: "/path/id",
          message: "must be integer (is string)",
        },
      ],
      warnings: [],
    };
    const file = await record(live);
    const entry = JSON.parse(readFileSync(file, "utf8")).log.entries[0];
    expect(entry._idvWithheld.locations.length).toBeGreaterThan(0);
    const [result] = await checkRecording(checker, file);
    expect(result?.ok).toBe(false);
    expect(result?.violations).toEqual(live.violations);
    expect(result?.withheld).toEqual(entry._idvWithheld.locations);
    expect(result?.warnings.map((w) => w.check)).toContain(WITHHELD_CHECK);
  });

  it("never passes silently: a live pass is reported as withheld, not as the stand-in's failure", async () => {
    const file = await record({ ...base, ok: true, violations: [], warnings: [] });
    const [result] = await checkRecording(checker, file);
    expect(result?.ok).toBe(true);
    expect(result?.violations).toEqual([]);
    expect(result?.warnings.length).toBeGreaterThan(0);
    expect(result?.warnings.every((w) => w.check === WITHHELD_CHECK)).toBe(true);
    const text = await runMain(["check", file]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("value_withheld");
    expect(text.stdout).toContain("the recording withheld the value here");
  });
});

describe("a recording's withheld member", () => {
  const entry = (withheld: unknown) => ({
    startedDateTime: "2026-11-22T09:30:00.000Z",
    time: 1,
    request: {
      method: "GET",
      url: "http://x/api/v4/outsource_cases/1",
      headers: [],
      httpVersion: "HTTP/1.1",
    },
    response: { status: 404, headers: [], content: { size: 0, mimeType: "" } },
    _idvWithheld: withheld,
  });
  const write = (withheld: unknown) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.har`);
    writeFileSync(file, JSON.stringify({ log: { version: "1.2", entries: [entry(withheld)] } }));
    return file;
  };

  it.each([
    ["not an object", "x", /_idvWithheld is not an object/],
    ["no locations", {}, /_idvWithheld\.locations is not an array/],
    [
      "a part the suite does not know",
      { locations: [{ in: "elsewhere", pointer: "" }] },
      /\.in is not a part/,
    ],
    [
      "a pointer that is not one",
      { locations: [{ in: "request.body", pointer: "x" }] },
      /not a JSON pointer/,
    ],
    [
      "a check the suite does not have",
      { locations: [], violations: [{ in: "request.body", check: CANARIES[0], pointer: "", message: "" }] },
      /\.check is not a check of the suite/,
    ],
  ])("is refused when it has %s, with one line naming the entry", async (_, withheld, reason) => {
    const { status, stderr } = await runMain(["check", write(withheld)]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/entry 0/);
    expect(stderr).toMatch(reason);
    expect(stderr).not.toContain(CANARIES[0]);
  });

  it("shows none of a recorded message's words: each is made again from its check's rule", async () => {
    const said = `${CANARIES[0]} [link](https://evil.example/) <img src=x onerror=alert(1)> \u001b[2J\n::error::x`;
    const file = write({
      locations: [
        { in: "response.status", pointer: "" },
        { in: "request.body", pointer: "" },
      ],
      violations: [{ in: "response.status", check: "status_code_documented", pointer: "", message: said }],
      warnings: [{ in: "request.body", check: "request_body_schema", pointer: "", message: said }],
    });
    const [result] = await checkRecording(checker, file);
    const status = result?.violations.filter((v) => v.in === "response.status");
    expect(status?.map((v) => v.message)).toEqual([recordedMessage("status_code_documented", "violation")]);
    const body = result?.warnings.filter((w) => w.check === "request_body_schema");
    expect(body?.map((w) => w.message)).toEqual([recordedMessage("request_body_schema", "warning")]);
    expect(result?.ok).toBe(false);
    for (const format of ["text", "json", "junit", "sarif", "github"]) {
      const run = await runMain(["check", file, "--format", format]);
      expect(run.status).toBe(1);
      for (const part of [CANARIES[0], "evil.example", "<img", "onerror", "\u001b"])
        expect(run.stdout + run.stderr).not.toContain(part);
    }
  });

  it("takes only the checks an exchange has, as the checks' own table lists them", async () => {
    const delivery = write({
      locations: [{ in: "request.body", pointer: "" }],
      violations: [{ in: "request.body", check: "payload_schema", pointer: "", message: "" }],
    });
    expect((await runMain(["check", delivery])).stderr).toMatch(/\.check is not a check of the suite/);
    const messageless = write({
      locations: [{ in: "request.body", pointer: "" }],
      violations: [{ in: "request.body", check: "request_body_schema", pointer: "" }],
    });
    expect((await runMain(["check", messageless])).status).toBe(1);
  });
});
