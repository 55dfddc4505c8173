// The end-to-end example of the sandbox (examples/sandbox-e2e.ts), run as npm test runs it: the main
// flow with the README's receiver, at the sandbox's default journey delay.
import { describe, expect, it } from "vitest";
import { runSandboxEndToEnd } from "../../examples/sandbox-e2e.js";
import { recordingFetch } from "../support/har-recorder.js";
import { pdfStructureProblems } from "../support/pdf.js";
import { trafficViolations } from "../support/sandbox.js";

describe("examples/sandbox-e2e.ts", () => {
  it("start → created → completed → PDF → an hour later → archived, with conforming traffic", async () => {
    const recorder = recordingFetch();
    const result = await runSandboxEndToEnd({ fetch: recorder.fetch });
    expect(result.events).toEqual([
      `created ${result.transactionId}`,
      `completed ${result.transactionId}`,
      `archived ${result.transactionId}`,
    ]);
    expect(result.pdf.filename).toBe(`biometric-${result.transactionId}.pdf`);
    const pdf = Buffer.from(result.pdf.bytes).toString("latin1");
    expect(pdfStructureProblems(pdf)).toEqual([]);
    expect(pdf).toContain("onboarding-7731");
    expect(recorder.entries.map((e) => `${e.request.method} ${e.response.status}`)).toEqual([
      "POST 200",
      "GET 200",
    ]);
    expect(await trafficViolations(recorder.har())).toEqual([]);
  }, 20_000);
});
