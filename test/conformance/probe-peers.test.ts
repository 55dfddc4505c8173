// The probe against servers it did not write: plain Prism (`prism mock generated/openapi.json`),
// whose own answers are not the service's; and hostile servers whose answers are arbitrary bytes.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot, ROOT } from "../../scripts/lib/paths.js";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";

const KEY = "prism-key";
const SECRET = "prism-secret";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listening(port: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      }).on("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > end) throw new Error("prism did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("against plain Prism", () => {
  let prism: ChildProcess;
  let url = "";
  beforeAll(async () => {
    const port = await freePort();
    prism = spawn(
      fromRoot("node_modules/.bin/prism"),
      ["mock", "generated/openapi.json", "-h", "127.0.0.1", "-p", String(port)],
      {
        cwd: ROOT,
        stdio: "ignore",
      },
    );
    url = `http://127.0.0.1:${port}`;
    await listening(port, 60_000);
  }, 90_000);
  afterAll(() => {
    prism.kill();
  });

  it("produces the findings Prism's own answers must produce, and none in the examples phase", async () => {
    const run = await runInProcess([
      "probe",
      "--base-url",
      url,
      "--key",
      KEY,
      "--secret",
      SECRET,
      "--seed",
      "5",
      "--format",
      "json",
    ]);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as { results: ActiveResult[] };
    const fired = [
      ...new Set(report.results.flatMap((r) => r.violations.map((f) => `${r.phase} ${f.check}`))),
    ].sort();
    expect(fired).toEqual([
      // Prism accepts what breaks the contract where its validation does not reach (undescribed members, bad UTF-8)…
      "auth auth_refused",
      // …knows nothing of CRED_AT_RISK…
      "auth credentials_at_risk",
      // …accepts drawn bodies that break a rule its validation does not reach…
      "generative generated_refused",
      // …serves a second download of an archived report like the first (in the walks and journeys)…
      "generative link_state",
      "generative success_criterion",
      // …answers its own error body (not the service's shapes) with its own statuses…
      "negative error_shape",
      "negative negative_refused",
      "negative status_code_documented",
      // …and keeps no state.
      "stateful success_criterion",
      "stateful unknown_id_not_found",
    ]);
  }, 120_000);
});

describe("against hostile servers", () => {
  const CANARY = "CANARY-7e3b-values-never-echoed";
  let answer: { status: number; type: string; body: Buffer; header: string } = {
    status: 200,
    type: "",
    body: Buffer.alloc(0),
    header: "",
  };
  // Whether a request without credentials gets this API's 401 (so the preflight takes the server for
  // this API) or the same hostile answer as every other request.
  let authenticates = true;
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume().on("end", () => {
        try {
          if (authenticates && req.headers["svc-api-key"] === undefined) {
            res.writeHead(401, { "content-type": "application/json" });
            res.end(JSON.stringify({ error_code: "AUTH_FAILED", message: "Authentication failed." }));
            return;
          }
          res.writeHead(answer.status, {
            "content-type": answer.type,
            "x-peer": answer.header,
            [`x-${answer.header.replace(/[^a-z]/g, "") || "n"}`]: CANARY,
          });
          res.end(answer.body);
        } catch {
          res.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("follows a link to a value that is not an id without printing it", async () => {
    answer = {
      status: 200,
      type: "application/json",
      // Enough for the workflow's criteria to hold (a failed step's dependents are skipped).
      body: Buffer.from(JSON.stringify({ id: CANARY, transaction_id: CANARY, is_pep_watchlist_clear: true })),
      header: "",
    };
    const run = await runInProcess([
      "probe",
      "--base-url",
      url,
      "--key",
      KEY,
      "--secret",
      SECRET,
      "--format",
      "json",
      "--operations",
      "createPepCheck,getPepCheckPdf",
      "--phases",
      "stateful",
    ]);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as { results: ActiveResult[] };
    // The created id was followed (the PDF step ran) and its failures carry a reproducer.
    expect(
      report.results.some(
        (r) => r.operationId === "getPepCheckPdf" && r.curl?.includes("/pdf/pep_checks/[redacted]"),
      ),
    ).toBe(true);
    expect(run.stdout).not.toContain(CANARY);
  });

  it("never crashes and never quotes what the server sent", async () => {
    const body = fc.oneof(
      fc.json().map((j) => j.replace(/"[^"]*"/, JSON.stringify(CANARY))),
      fc
        .uint8Array({ maxLength: 2000 })
        .map((b) => Buffer.concat([Buffer.from(`{"${CANARY}":`), Buffer.from(b)])),
      fc.nat(3000).map((n) => `${"[".repeat(n)}"${CANARY}"`),
      fc.constant(JSON.stringify({ error_code: CANARY, message: CANARY, id: CANARY, assets: CANARY })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 100, max: 599 }).filter((s) => s !== 101 && s >= 200),
        fc.constantFrom(
          "application/json",
          "application/pdf",
          "text/html",
          "application/json; charset=utf-16",
          "",
        ),
        body,
        fc.string({ maxLength: 20 }),
        fc.boolean(),
        async (status, type, content, header, auth) => {
          answer = { status, type, body: Buffer.from(content), header: header.replace(/[^\x20-\x7e]/g, "") };
          authenticates = auth;
          const run = await runInProcess([
            "probe",
            "--base-url",
            url,
            "--key",
            KEY,
            "--secret",
            SECRET,
            "--seed",
            "3",
            "--format",
            "json",
            "--operations",
            "createPepCheck,getPepCheckPdf,getEddCase",
            "--phases",
            "examples,stateful",
            "--timeout",
            "5000",
          ]);
          if (run.status === 2) {
            // The check before any case: one line, and no report; refused credentials (a 401 to the
            // signed GETs) or, when nothing answered as this API, a server that is not this API.
            expect(run.stdout).toBe("");
            expect(run.stderr).toMatch(
              /^idv-conformance probe: \S+ (refused the credentials|does not answer as this API): [^\n]*\n$/,
            );
            if (auth) expect(run.stderr).toContain("refused the credentials");
            expect(run.stdout + run.stderr).not.toContain(CANARY);
            return;
          }
          expect(status).not.toBe(401);
          expect([0, 1]).toContain(run.status);
          expect(run.stderr).toBe("");
          JSON.parse(run.stdout);
          expect(run.stdout).not.toContain(CANARY);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
