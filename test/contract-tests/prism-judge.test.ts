// Prism as a standing judge: the sandbox's end-to-end flow (examples/sandbox-e2e.ts) and the contract
// tests' requests (./requests.ts) go to the sandbox through `prism proxy generated/openapi.json`, and
// Prism must find no violation in any answer. What Prism cannot judge goes around it (see
// test/support/prism-judge.ts and docs/other-tools.md). A deliberately wrong upstream shows that
// Prism is looking.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSandboxEndToEnd } from "../../examples/sandbox-e2e.js";
import type { RunningSandbox } from "../../sandbox/start.js";
import { createClient, type IdvClient } from "../../src/index.js";
import { deref } from "../support/contract.js";
import { type PrismJudge, startPrismJudge } from "../support/prism-judge.js";
import { CREDENTIALS, startTestSandbox } from "../support/sandbox.js";
import { callOperation, doc, name, ops, requestFor } from "./requests.js";

const clientFor = (baseUrl: string, fetch: typeof globalThis.fetch, transform?: (r: Request) => Request) =>
  createClient({
    baseUrl,
    ...CREDENTIALS,
    runtime: "server",
    retry: false,
    fetch: transform ? (input, init) => fetch(transform(new Request(input, init))) : fetch,
  });

describe("Prism in front of the sandbox", () => {
  let sandbox: RunningSandbox;
  let judge: PrismJudge;
  let client: IdvClient;

  beforeAll(async () => {
    sandbox = (await startTestSandbox()).running;
    judge = await startPrismJudge(sandbox.url);
    client = clientFor(sandbox.url, judge.fetch);
  });
  afterAll(async () => {
    await judge?.close();
    await sandbox?.close();
  });

  it("judges the end-to-end flow: no violation", async () => {
    // The example starts its own sandbox; its contract calls reach it through a Prism started for it.
    let e2eJudge: PrismJudge | undefined;
    let starting: Promise<PrismJudge> | undefined;
    const viaPrism = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      starting ??= startPrismJudge(new URL(request.url).origin);
      e2eJudge = await starting;
      return e2eJudge.fetch(request);
    };
    try {
      const result = await runSandboxEndToEnd({ fetch: viaPrism as typeof fetch });
      expect(result.events.map((e) => e.split(" ")[0])).toEqual(["created", "completed", "archived"]);
      expect(e2eJudge?.judged.map((e) => e.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, "…"))).toEqual([
        "POST /api/v2/send_text → 200",
        "GET /api/v2/biometric/pdf/….pdf → 200",
      ]);
      expect(e2eJudge?.violations).toEqual([]);
      expect(e2eJudge?.logged).toEqual([]);
    } finally {
      await e2eJudge?.close();
    }
  }, 60_000);

  it("judges every contract-test request sent to the sandbox: no violation", async () => {
    const stripped = clientFor(sandbox.url, judge.fetch, (request) => {
      request.headers.delete(request.headers.has("svc-secret") ? "svc-secret" : "svc-signature");
      return request;
    });
    const isFile = (o: (typeof ops)[number]) =>
      !deref(doc, o.op.responses["200"]).content?.["application/json"];
    for (const o of ops) {
      // What the contract tests send: the example, without a credential, with a member the contract
      // lacks, and asking for each documented error.
      if (isFile(o)) {
        const { body } = requestFor(o.op);
        const params = {
          path: Object.fromEntries([...o.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], 1042])),
        };
        const download = client.download as unknown as (m: string, p: string, i: object) => Promise<unknown>;
        await download(o.method, o.path, body === undefined ? { params } : { params, body }).catch(
          () => undefined,
        );
      } else await callOperation(client, o.method, o.path);
      await callOperation(stripped, o.method, o.path);
      const example = requestFor(o.op).body as Record<string, unknown> | undefined;
      if (example && o.op.responses["422"])
        await callOperation(client, o.method, o.path, {}, { ...example, member_the_contract_lacks: 1 });
      for (const status of Object.keys(o.op.responses).filter((s) => /^[45]/.test(s)))
        await callOperation(client, o.method, o.path, { prefer: `code=${status}` });
    }
    if (process.env.PRISM_JUDGE_LIST) console.log(judge.judged.join("\n"));
    expect(judge.judged.length).toBeGreaterThanOrEqual(ops.length * 3);
    expect(judge.violations).toEqual([]);
    expect(judge.logged).toEqual([]);
    expect(judge.around).toEqual([]);
    expect(judge.network()).toEqual([]);
    // Each operation was judged at least once.
    for (const o of ops)
      expect(
        judge.judged.some((e) => e.startsWith(`${o.method.toUpperCase()} `)),
        name(o),
      ).toBe(true);
  }, 120_000);

  it("sends what Prism cannot judge around it, and says so", async () => {
    const response = await judge.fetch(`${sandbox.url}/api/v4/pep_checks`, {
      method: "POST",
      headers: { "content-type": "application/json", "svc-key": CREDENTIALS.apiKey },
      body: "{not json",
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    await judge.fetch(`${sandbox.url}/api/v4/outsource_cases/1042`, { method: "HEAD" });
    expect(judge.around).toEqual([
      "POST /api/v4/pep_checks: malformed JSON (Prism answers it itself)",
      "HEAD /api/v4/outsource_cases/1042: HEAD (Prism answers it with its own 500)",
    ]);
    judge.around.length = 0;
  });
});

describe("Prism in front of a deliberately wrong server", () => {
  let wrong: Server;
  let judge: PrismJudge;
  let upstream: string;

  beforeAll(async () => {
    // Answers every request 200 with a body no operation of the contract answers.
    wrong = createServer((_req, res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"unexpected":true,"transaction_id":7}');
    });
    await new Promise<void>((resolve) => wrong.listen(0, "127.0.0.1", resolve));
    upstream = `http://127.0.0.1:${(wrong.address() as AddressInfo).port}`;
    judge = await startPrismJudge(upstream);
  });
  afterAll(async () => {
    await judge?.close();
    await new Promise((resolve) => wrong?.close(resolve));
  });

  it("reports response violations: Prism is looking", async () => {
    const client = clientFor(upstream, judge.fetch);
    for (const o of ops.filter((op) => op.method === "post").slice(0, 4))
      await callOperation(client, o.method, o.path).catch(() => undefined);
    expect(judge.judged.length).toBe(4);
    expect(judge.violations.length).toBeGreaterThanOrEqual(4);
    expect(new Set(judge.violations.map((v) => v.exchange)).size).toBe(4);
    expect(judge.violations.every((v) => v.location.startsWith("response"))).toBe(true);
    expect(judge.logged.length).toBeGreaterThan(0);
    if (process.env.PRISM_JUDGE_LIST) console.log(judge.violations, judge.logged);
  });
});
