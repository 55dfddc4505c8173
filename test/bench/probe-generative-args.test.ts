// The probe bench's plumbing (bench/probe-generative-runs.ts): the probe is given every phase the
// probe lists and the run's time budget, and Schemathesis' JUnit failures are read back as the
// operations they name.
import { describe, expect, it } from "vitest";
import { PHASES } from "../../conformance/probe/probe-case.js";
import { PROBE_USAGE } from "../../conformance/probe/probe-cli.js";
import { junitFailedOperations, probeArgs } from "../../bench/probe-generative-runs.js";

const plan = {
  defect: undefined,
  operations: ["createPepCheck", "getPepCheckPdf"],
  seed: 7,
  budgetSeconds: 30,
};
const valueOf = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe("the probe's arguments", () => {
  it("name every phase of PHASES, the operations and the seed", () => {
    const args = probeArgs(plan, "http://127.0.0.1:1");
    expect(valueOf(args, "--phases")).toBe(PHASES.join(","));
    expect(valueOf(args, "--operations")).toBe("createPepCheck,getPepCheckPdf");
    expect(valueOf(args, "--seed")).toBe("7");
  });

  it("give the run's time budget to the generative phase, in the unit the probe's usage names", () => {
    expect(PROBE_USAGE).toMatch(/--generative-time MS/);
    expect(valueOf(probeArgs(plan, "u"), "--generative-time")).toBe("30000");
  });
});

describe("Schemathesis' JUnit report", () => {
  it("names the operations of the failed and errored cases only", () => {
    const xml = `<testsuites><testsuite>
<testcase name="POST /api/v4/pep_checks"><failure message="x">…</failure></testcase>
<testcase name="GET /api/v4/pdf/pep_checks/{id}"></testcase>
<testcase name="GET /api/v4/outsource_cases/{id}"><error message="y"/></testcase>
<testcase name="POST /api/v4/outsource_cases/{id}/upload"><failure message="z"/></testcase>
</testsuite></testsuites>`;
    const ops = ["createPepCheck", "getPepCheckPdf", "getEddCase", "createEddCase"];
    // The upload's failure is not its create's, whose path is a prefix of the upload's.
    expect(junitFailedOperations(xml, ops)).toEqual(new Set(["createPepCheck", "getEddCase"]));
    expect(junitFailedOperations("", ops)).toEqual(new Set());
  });
});
