// The CLI: exit codes, report formats, and unusable input reported clearly, never with a stack trace.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixture, hasStackTrace, runCli, tempDir, writeNdjson } from "./support/cli.js";
import { bodyJson, example, jsonText } from "./support/exchanges.js";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("idv-conformance check", () => {
  it("exits 0 on conforming traffic (HAR with base64 bodies)", () => {
    const run = runCli(["check", fixture("conforming.har")]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/4 checked: 4 passed, 0 failed, 0 warnings/);
  });

  it("exits 1 and writes every format when something does not conform", () => {
    const broken = example("createPepCheck");
    delete broken.request.headers["svc-date"];
    const file = writeNdjson(dir, "mixed.ndjson", [example("getEddCase"), broken]);

    const text = runCli(["check", file]);
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(
      /createPepCheck: 1 checked, 1 failed\n {2}✗ auth_headers_present \(1 violation\)/,
    );

    const out = join(dir, "report.json");
    const json = runCli(["check", file, "--format", "json", "--out", out]);
    expect(json.status).toBe(1);
    expect(json.stdout).toBe("");
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report.summary).toEqual({ entries: 2, passed: 1, failed: 1, warnings: 0 });
    expect(report.entries[1]).toMatchObject({
      index: 1,
      method: "POST",
      path: "/api/v4/pep_checks",
      operationId: "createPepCheck",
      ok: false,
      violations: [
        {
          in: "request.header",
          check: "auth_headers_present",
          pointer: "/Svc-Date",
          message: expect.any(String),
        },
      ],
      warnings: [],
    });

    const junit = runCli(["check", file, "--format", "junit"]);
    expect(junit.status).toBe(1);
    expect(junit.stdout.match(/<testcase /g)).toHaveLength(2);
    expect(junit.stdout).toMatch(/<testsuite name="idv-conformance check" tests="2" failures="1"/);
    expect(junit.stdout).toMatch(/<failure message="auth_headers_present: /);
  });

  it("turns warnings into failures with --warnings-as-errors", () => {
    const x = example("createPepCheck");
    if (x.response) x.response.body = jsonText({ ...bodyJson(x.response.body), risk_band: "low" });
    const file = writeNdjson(dir, "warning.ndjson", [x]);
    const plain = runCli(["check", file]);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toMatch(/! response_body_schema \(1 warning\)/);
    expect(runCli(["check", file, "--warnings-as-errors"]).status).toBe(1);
  });

  it("exits 2 naming the file on a truncated HAR", () => {
    const run = runCli(["check", fixture("truncated.har")]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/truncated\.har: is not valid JSON: it ends too early/);
    expect(hasStackTrace(run.stderr)).toBe(false);
  });

  it("exits 2 naming the line of an NDJSON line that is not JSON, or has no request", () => {
    const notJson = writeNdjson(dir, "bad-line.ndjson", [
      example("getEddCase"),
      '{"request": {"method": "GET", "url"',
    ]);
    const run = runCli(["check", notJson]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/bad-line\.ndjson: line 2: is not valid JSON/);
    const noRequest = writeNdjson(dir, "no-request.ndjson", ['{"response": {"status": 200}}']);
    const second = runCli(["check", noRequest]);
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(/no-request\.ndjson: line 1: has no request object/);
    expect(hasStackTrace(run.stderr + second.stderr)).toBe(false);
  });

  it("exits 2 on a HAR entry without a URL, on a body marked base64 that is not, and on a missing file", () => {
    const har = join(dir, "no-url.har");
    writeFileSync(
      har,
      JSON.stringify({ log: { entries: [{ request: { method: "GET" }, response: { status: 200 } }] } }),
    );
    expect(runCli(["check", har]).stderr).toMatch(/no-url\.har: entry 0: request\.url is missing/);
    const bad64 = writeNdjson(dir, "bad64.ndjson", [
      JSON.stringify({
        request: { method: "GET", path: "/api/v4/pdf/pep_checks/1" },
        response: { status: 200, body: "%%%", bodyEncoding: "base64" },
      }),
    ]);
    const run = runCli(["check", bad64]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/line 1: response\.body is marked base64 but is not base64/);
    const missing = runCli(["check", join(dir, "nothing-here.har")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/nothing-here\.har: cannot be read/);
  });

  it("reports a non-JSON body under application/json, a missing response and a binary body as violations", () => {
    const notJson = example("createPepCheck");
    if (notJson.response) notJson.response.body = { kind: "text", text: "<html>502 Bad Gateway</html>" };
    const noResponse = example("getEddCase");
    noResponse.response = undefined;
    const binary = example("createFraudAnalytic");
    if (binary.response)
      binary.response.body = { kind: "bytes", bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) };
    const file = writeNdjson(dir, "malformed.ndjson", [notJson, noResponse, binary]);
    const run = runCli(["check", file, "--format", "json"]);
    expect(run.status).toBe(1);
    const messages = JSON.parse(run.stdout).entries.map(
      (e: { violations: { message: string }[] }) => e.violations[0]?.message,
    );
    expect(messages).toEqual([
      "the body is not valid JSON, although sent as application/json",
      "no response was recorded for this request",
      "the body is not valid JSON, although sent as application/json",
    ]);
  });

  it("checks a 50 MB entry without crashing", () => {
    const x = example("getPepCheckPdf");
    if (x.response)
      x.response.body = { kind: "text", text: `%PDF-1.4\n${"0".repeat(50 * 1024 * 1024)}\n%%EOF` };
    const file = writeNdjson(dir, "large.ndjson", [x, example("getEddCase")]);
    const run = runCli(["check", file]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/2 checked: 2 passed/);
  });

  it("gives the same report with --jobs in worker threads, and stops on unusable input there too", () => {
    const broken = example("createEddCase");
    delete broken.request.headers["svc-signature"];
    const a = writeNdjson(dir, "jobs-a.ndjson", [example("getEddCase"), broken]);
    const b = writeNdjson(dir, "jobs-b.ndjson", [example("createPepCheck", 422)]);
    const serial = runCli(["check", a, b, fixture("conforming.har"), "--format", "json"]);
    const parallel = runCli(["check", a, b, fixture("conforming.har"), "--format", "json", "--jobs", "2"]);
    expect(parallel.status).toBe(1);
    expect(parallel.stdout).toBe(serial.stdout);
    expect(JSON.parse(parallel.stdout).summary).toEqual({ entries: 7, passed: 6, failed: 1, warnings: 0 });
    const bad = runCli(["check", a, fixture("truncated.har"), "--jobs", "2"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/truncated\.har: is not valid JSON/);
    expect(hasStackTrace(bad.stderr)).toBe(false);
  });

  it("exits 2 with the usage on a bad command line", () => {
    const run = runCli(["check", fixture("conforming.har"), "--format", "xml"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^idv-conformance: --format must be one of text, json, junit, sarif, github\n\nUsage:/,
    );
    expect(runCli(["verify"]).status).toBe(2);
    expect(runCli(["check", fixture("conforming.har"), "--jobs", "0"]).stderr).toMatch(
      /--jobs must be a whole number/,
    );
    const unwritable = runCli([
      "check",
      fixture("conforming.har"),
      "--out",
      join(dir, "no-such-dir", "report.json"),
    ]);
    expect(unwritable.status).toBe(2);
    expect(unwritable.stderr).toMatch(/report\.json: cannot be written/);
  });

  it("takes another contract with --spec, and rejects one that is not OpenAPI", () => {
    const spec = join(dir, "tiny.json");
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "t", version: "1" },
        paths: { "/ping": { get: { responses: { "204": { description: "pong" } } } } },
      }),
    );
    const traffic = writeNdjson(dir, "ping.ndjson", [
      JSON.stringify({ request: { method: "GET", url: "http://h/ping" }, response: { status: 204 } }),
    ]);
    expect(runCli(["check", traffic, "--spec", spec]).status).toBe(0);
    const notSpec = join(dir, "not-spec.json");
    writeFileSync(notSpec, "{}");
    const run = runCli(["check", traffic, "--spec", notSpec]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/not-spec\.json: is not an OpenAPI 3 document/);
  });
});
