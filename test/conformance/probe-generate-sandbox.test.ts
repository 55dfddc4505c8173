// The generators against the sandbox (in this process, signed as the probe signs): every valid body
// of each creating operation (and of an EDD case's status and upload) is answered with a documented
// 2xx, every broken one with one of the operation's documented 4xx. No false alarm on the sandbox.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { bundledContract } from "../../conformance/checks/load-contract.js";
import { type ProbeOperation, probeOperations } from "../../conformance/probe/contract-operations.js";
import { credentialHeaders } from "../../conformance/probe/credentials.js";
import { bodyArbitraries } from "../../conformance/probe/generate/index.js";
import type { BodyBytes } from "../../conformance/probe/request-body.js";

const { createSandbox } = await import("../../sandbox/index.js");
const document = bundledContract();
const sandbox = await createSandbox({ key: "probe-key", secret: "probe-secret" });
afterAll(() => sandbox.close());
const RUNS = 100;

/** Send a body to an operation, signed with the sandbox's credentials. */
async function send(
  op: ProbeOperation,
  path: string,
  body: BodyBytes,
): Promise<{ status: number; text: string }> {
  const credentials = credentialHeaders(
    op.auth,
    { apiKey: "probe-key", secret: "probe-secret" },
    "valid",
    body.bytes,
  );
  const answer = await sandbox.fetch(`${sandbox.url}${path}`, {
    method: op.method,
    headers: { "content-type": body.contentType, ...Object.fromEntries(credentials.headers) },
    body: new Uint8Array(body.bytes),
  });
  return { status: answer.status, text: await answer.text() };
}

const operations = probeOperations(document);
const createEdd = operations.find((o) => o.operationId === "createEddCase")!;
// The operations a body reaches without a record of the caller's: those without a path parameter,
// and those of an EDD case, which the test creates.
const reached = operations.filter(
  (op) => op.body && (op.pathParams.length === 0 || op.template.startsWith("/api/v4/outsource_cases/{id}")),
);

describe("generated bodies against the sandbox", () => {
  it.each(reached.map((op) => [op.operationId, op] as const))(
    "%s: valid → 2xx, broken → a documented 4xx",
    async (_, op) => {
      const edd = {
        bytes: Buffer.from(JSON.stringify({ email: "probe@example.com", entity_type: "trust" })),
        contentType: "application/json",
      };
      const created = await send(createEdd, createEdd.template, edd);
      expect(created.status).toBe(200);
      const path = op.template.replace("{id}", String(JSON.parse(created.text).id));
      const { valid, broken } = bodyArbitraries(document, op.body!, "probe-run-sandbox");
      for (const g of fc.sample(valid, { numRuns: RUNS, seed: 46 }))
        expect((await send(op, path, g.body)).status, JSON.stringify(g.value)).toBeLessThan(300);
      for (const b of fc.sample(broken!, { numRuns: RUNS, seed: 46 }))
        expect(op.clientErrors, b.rule).toContain((await send(op, path, b.body)).status);
    },
  );
});
