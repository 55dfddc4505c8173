// `proxy --sign` finds each request's operation and scheme in the checker's own model of the contract:
// the scheme agrees with the client's for every operation of the bundled contract, and follows the
// contract the proxy checks against when that one says otherwise.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledContract } from "../../conformance/checks/load-contract.js";
import { schemeOf, signingHandler } from "../../conformance/proxy/sign-upstream.js";
import { startProxy } from "../../conformance/proxy/proxy.js";
import { contractModelOf, openConformanceChecker } from "../../conformance/run/open-checker.js";
import { factsOf } from "../../src/client/facts.js";

const credentials = { apiKey: "model-test-key", secret: "model-test-secret" };
const got: IncomingHttpHeaders[] = [];
let upstream: Server;
let upstreamUrl: URL;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    got.push(req.headers);
    req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});
afterAll(() => new Promise((resolve) => upstream.close(resolve)));

describe("proxy --sign and the checker's model", () => {
  it("gives every operation of the bundled contract the scheme the client signs it with", async () => {
    const model = contractModelOf(await openConformanceChecker());
    expect(model?.operations.length).toBeGreaterThan(0);
    const schemes = new Set<string>();
    for (const op of model?.operations ?? []) {
      const auth = schemeOf(op).auth;
      schemes.add(auth);
      expect(auth, `${op.method} ${op.template}`).toBe(factsOf(op.method, op.template)?.auth);
    }
    expect([...schemes].sort()).toEqual(["v2", "v4"]);
  });

  it("signs by the contract the proxy checks against: an operation it makes v2 gets the secret", async () => {
    const spec = structuredClone(bundledContract());
    spec.paths["/api/v4/pep_checks"].post.security = [{ SvcApiKey: [], SvcSecret: [] }];
    const proxy = await startProxy({
      upstream: upstreamUrl,
      checker: await openConformanceChecker({ spec }),
      port: 0,
      sign: signingHandler(credentials, { maxBytes: 1024 }),
    });
    try {
      got.length = 0;
      const response = await fetch(`${proxy.url}/api/v4/pep_checks`, { method: "POST", body: "{}" });
      await response.arrayBuffer();
      expect(got).toHaveLength(1);
      expect(got[0]?.["svc-api-key"]).toBe(credentials.apiKey);
      expect(got[0]?.["svc-secret"]).toBe(credentials.secret);
      expect(got[0]?.["svc-signature"]).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });
});
