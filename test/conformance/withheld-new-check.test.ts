// A check added to the suite reaches the reading of recordings with no second list to update: the
// checks a recording's withheld member may name come from the checks' own table (rules.ts). Here
// the table gains a check of an exchange (as a new phase of the probe would add one); a recording
// made with its finding is read back and reported in every format, never refused as "is not a
// check of the suite".
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { CheckName, EntryResult } from "../../conformance/findings/findings.js";
import { HarRecorder } from "../../conformance/proxy/har.js";
import { openConformanceChecker } from "../../conformance/run/open-checker.js";
import { loadOpenApi } from "../support/contract.js";
import { checkRecording } from "./support/recording.js";
import { runMain } from "./support/in-process.js";

const added = vi.hoisted(() => ({
  name: "fixture_exchange_check",
  description: "The fixture's own rule holds for the exchange.",
}));

vi.mock("../../conformance/findings/rules.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../conformance/findings/rules.js")>();
  const CHECK_RULES = {
    ...original.CHECK_RULES,
    [added.name]: {
      title: "Fixture check",
      description: added.description,
      help: "Nothing: it is a fixture.",
      level: "error",
      judges: "exchange",
    },
  };
  return { ...original, CHECK_RULES, CHECK_NAMES: Object.keys(CHECK_RULES) };
});

const { recordedMessage } = await import("../../conformance/findings/withheld.js");

const doc = loadOpenApi();
const checker = await openConformanceChecker({ spec: doc });
const dir = mkdtempSync(join(tmpdir(), "idv-withheld-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const check = added.name as CheckName;

/** The live verdict of a GET of a case: the added check found the response body wrong. */
const live: EntryResult = {
  index: 0,
  method: "GET",
  path: "/api/v4/outsource_cases/{id}",
  operationId: "getEddCase",
  ok: false,
  violations: [{ in: "response.body", check, pointer: "", message: "the fixture's rule did not hold" }],
  warnings: [],
};

/** Record that exchange with its live verdict; the file. */
async function record(): Promise<string> {
  const file = join(dir, "added-check.har");
  const recorder = await HarRecorder.open(file, doc, { checker });
  recorder.add({
    startedAt: new Date(0),
    durationMs: 1,
    method: "GET",
    target: { origin: "http://127.0.0.1:1", pathname: "/api/v4/outsource_cases/1042", query: "" },
    request: { headers: [], size: 0 },
    status: 404,
    response: { headers: [], size: 0 },
    verdict: live,
  });
  await recorder.close();
  return file;
}

describe("a check added to the checks' table", () => {
  it("is recorded in the withheld member, read back, and reported with its rule's words", async () => {
    const file = await record();
    const entry = JSON.parse(readFileSync(file, "utf8")).log.entries[0];
    expect(entry._idvWithheld.violations.map((f: { check: string }) => f.check)).toContain(added.name);
    const [result] = await checkRecording(checker, file);
    expect(result?.ok).toBe(false);
    expect(result?.violations.filter((f) => f.check === check)).toEqual([
      { in: "response.body", check, pointer: "", message: recordedMessage(check, "violation") },
    ]);
    expect(recordedMessage(check, "violation")).toContain("the fixture's own rule holds");
  });

  it.each(["text", "json", "junit", "sarif", "github"])(
    "reaches the %s report, not refused as a check the suite lacks",
    async (format) => {
      const run = await runMain(["check", await record(), "--format", format]);
      expect(run.stderr).not.toMatch(/is not a check of the suite/);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(added.name);
    },
  );
});
