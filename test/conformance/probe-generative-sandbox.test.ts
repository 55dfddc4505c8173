// The generative phase on the real contract against the sandbox: no false alarm, whatever the
// seed, and every kind of property (valid bodies, broken bodies, drawn ids, walks, journeys) is sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { probeOperations } from "../../conformance/probe/contract-operations.js";
import { bundledContract } from "../../conformance/checks/load-contract.js";
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

const shown = (r: ActiveResult) =>
  `${r.operationId} ${r.case}: ${r.violations.map((v) => `${v.check} ${v.message}`).join("; ")}`;

describe("the generative phase against the sandbox", () => {
  it.each([23, 4242])(
    "finds nothing wrong with the sandbox (seed %i)",
    async (seed) => {
      const { results } = await runProbe({
        baseUrl: new URL(sandbox.url),
        credentials: CREDENTIALS,
        phases: ["generative"],
        seed,
        maxRequests: 1500,
        concurrency: 4,
        readOnly: false,
        timeoutMs: 10_000,
        generativeMs: 120_000,
      });
      expect(results.filter((r) => !r.ok).map(shown)).toEqual([]);
      // Every creation got drawn bodies, accepted and refused; every operation was reached.
      const ops = probeOperations(bundledContract());
      const reached = new Set(results.map((r) => r.operationId));
      expect(ops.filter((op) => !reached.has(op.operationId)).map((op) => op.operationId)).toEqual([]);
      const cases = new Set(
        results.map((r) => r.case.replace(/ with .*$/, " with a broken rule").replace(/: .*$/, "")),
      );
      expect([...cases].sort()).toEqual(
        [
          "a drawn body the contract accepts",
          "a drawn body with a broken rule",
          "a journey",
          "a walk",
          "drawn path parameters",
        ].sort(),
      );
    },
    180_000,
  );
});
