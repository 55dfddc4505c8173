// The generative phase's journeys: the Arazzo workflows run with drawn members in their creation.
// A defect a journey's own criteria state (a second PDF download answered 200, from the defect
// bench) is found there, reported once as the journey's step; the clean sandbox gives no finding.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defectNamed } from "../../bench/probe-defects/defects.js";
import { type DefectServer, startDefectServer } from "../../bench/probe-defects/server.js";
import { runProbe } from "../../conformance/probe/run-probe.js";
import type { RunningSandbox } from "../../sandbox/start.js";
import { CREDENTIALS, startProbedSandbox } from "./fixtures/probe/probe-run.js";

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startProbedSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

async function journeys(defectName: string | undefined) {
  const defect = defectName === undefined ? undefined : defectNamed(defectName);
  const server: DefectServer = await startDefectServer({ upstream: sandbox.url, defect });
  try {
    const { results } = await runProbe({
      baseUrl: new URL(server.url),
      credentials: CREDENTIALS,
      phases: ["generative"],
      operations: new Set(["createPepCheck", "getPepCheckPdf"]),
      seed: 3,
      maxRequests: 600,
      concurrency: 2,
      readOnly: false,
      timeoutMs: 10_000,
      generativeMs: 60_000,
    });
    return results.filter((r) => r.case.startsWith("a journey: "));
  } finally {
    await server.close();
  }
}

describe("the generative phase's journeys", () => {
  it("run the workflows with drawn members, with no finding on the sandbox", async () => {
    const sent = await journeys(undefined);
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.filter((r) => !r.ok)).toEqual([]);
    expect(new Set(sent.map((r) => r.case))).toContain("a journey: pep-check-pdf: pdfAgain");
  });

  it("find what a journey's criteria state, once, as the journey's step", async () => {
    const failed = (await journeys("pep-pdf-archive-twice")).filter((r) => !r.ok);
    expect(failed.map((r) => r.case.replace(/ \(.*\)$/, ""))).toEqual(["a journey: pep-check-pdf: pdfAgain"]);
    expect(failed[0]!.violations.map((v) => v.check)).toContain("success_criterion");
    expect(failed[0]!.seed).toBe(3);
  });
});
