// The probe's command line for CI: a deployment that does not answer, is not this API at the base URL,
// or refuses the credentials, is one line and exit 2 before any case runs; --max-failures stops early; progress goes to stderr only
// on a terminal; the text report ends with a summary per phase.
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, launchSandbox } from "../../sandbox/start.js";
import { startBrokenServer } from "./fixtures/probe/broken-servers.js";
import { tempDir } from "./support/cli.js";
import { runMain, runMainOrBinary } from "./support/in-process.js";

const CREDENTIALS = { apiKey: "probe-cli-key-7c2d", secret: "probe-cli-secret-e41a" };
const WITH_CREDENTIALS = ["--key", CREDENTIALS.apiKey, "--secret", CREDENTIALS.secret];

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await launchSandbox({ port: 0, credentials: CREDENTIALS, journeyDelayMs: 100 });
});
afterAll(async () => {
  await sandbox.close();
});

/** A loopback port nothing listens on (it was listened on, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("before any case runs", () => {
  it("nothing listening: exit 2 and one line saying so, no report and no recording", async () => {
    const port = await closedPort();
    const har = join(tempDir(), "never.har");
    const run = await runMainOrBinary([
      "probe",
      "--base-url",
      `http://127.0.0.1:${port}`,
      ...WITH_CREDENTIALS,
      "--record",
      har,
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `idv-conformance probe: cannot reach http://127.0.0.1:${port}/: the connection was refused (is the deployment running?)\n`,
    );
    expect(run.stdout).toBe("");
    expect(existsSync(har)).toBe(false);
  });

  it.each([
    ["a wrong secret", { apiKey: CREDENTIALS.apiKey, secret: "not-the-secret-5d1f" }],
    ["a wrong key", { apiKey: "not-the-key-5d1f", secret: CREDENTIALS.secret }],
  ])("%s: exit 2 and one line saying the credentials were refused, never echoing them", async (_, wrong) => {
    const run = await runMainOrBinary([
      "probe",
      "--base-url",
      sandbox.url,
      "--key",
      wrong.apiKey,
      "--secret",
      wrong.secret,
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^idv-conformance probe: http:\/\/127\.0\.0\.1:\d+\/ refused the credentials: GET \/api\/v4\/\S+ \(v4, signed with the secret\) was answered 401; check IDV_API_KEY and IDV_API_SECRET \(or --key and --secret\)\n$/,
    );
    expect(run.stdout).toBe("");
    expect(run.stderr).not.toContain(wrong.secret);
    expect(run.stderr).not.toContain(wrong.apiKey);
  });

  it("a base URL with a path prefix too many (/api): exit 2 and one line naming the fix", async () => {
    const har = join(tempDir(), "never.har");
    const base = `${sandbox.url}/api`;
    const run = await runMainOrBinary(["probe", "--base-url", base, ...WITH_CREDENTIALS, "--record", har]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(existsSync(har)).toBe(false);
    expect(run.stderr.split("\n")).toHaveLength(2);
    expect(run.stderr).toBe(
      `idv-conformance probe: ${base} does not answer as this API: every known route answered 404 (4 GETs, e.g. /api/v4/pdf/properties/{id}/oov); the contract's paths already begin /api, so /api should not be in the base URL (it sent /api/api/v4/pdf/properties/{id}/oov): try --base-url ${sandbox.url}/\n`,
    );
  });

  it.each([
    ["404s everything", 404, "text/html", /every known route answered 404 \(4 GETs/],
    [
      "answers 200 HTML to everything",
      200,
      "text/html",
      /no answer was this API's \(e.g\. GET \S+ answered 200 in a media type the contract does not give it\)/,
    ],
    [
      "answers 401 HTML to everything",
      401,
      "text/html",
      /no answer was this API's \(e.g\. GET \S+ answered 401 in a media type the contract does not give it\)/,
    ],
  ])("a server that is not this API (it %s): exit 2 and one line", async (_, status, type, line) => {
    const other = createServer((req, res) => {
      req.resume();
      res.writeHead(status, { "content-type": type }).end("<html>not the API</html>");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const run = await runMainOrBinary(["probe", "--base-url", base, ...WITH_CREDENTIALS]);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.split("\n")).toHaveLength(2);
      expect(run.stderr).toMatch(
        new RegExp(`^idv-conformance probe: ${base}/ does not answer as this API: `),
      );
      expect(run.stderr).toMatch(line);
      expect(run.stderr).toMatch(/is it this API's deployment\? The contract's paths begin \/api\/\n$/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("a v2 secret refused while v4 signatures pass is said too", async () => {
    // The deployment re-signs v4 requests itself, so only the v2 secret is checked as sent.
    const broken = await startBrokenServer("ignores-signatures", { url: sandbox.url, ...CREDENTIALS });
    try {
      const run = await runMainOrBinary([
        "probe",
        "--base-url",
        broken.url,
        "--key",
        CREDENTIALS.apiKey,
        "--secret",
        "not-the-secret-5d1f",
      ]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/refused the credentials: GET \/api\/v2\/\S+ \(v2, key and secret\)/);
    } finally {
      await broken.close();
    }
  });
});

describe("while it runs", () => {
  it("--max-failures N stops sending once N requests have failed, and says so", async () => {
    const broken = await startBrokenServer("ignores-signatures", { url: sandbox.url, ...CREDENTIALS });
    try {
      const args = ["--phases", "auth", "--operations", "createPepCheck", "--format", "json"];
      const all = await runMainOrBinary(["probe", "--base-url", broken.url, ...WITH_CREDENTIALS, ...args]);
      const every = JSON.parse(all.stdout) as { summary: { failed: number }; notes: string[] };
      expect(every.summary.failed).toBe(4);
      const run = await runMainOrBinary([
        "probe",
        "--base-url",
        broken.url,
        ...WITH_CREDENTIALS,
        ...args,
        "--concurrency",
        "1",
        "--max-failures",
        "2",
      ]);
      expect(run.status).toBe(1);
      const report = JSON.parse(run.stdout) as {
        summary: { failed: number };
        phases: unknown[];
        notes: string[];
      };
      expect(report.summary.failed).toBe(2);
      expect(report.phases).toEqual([{ phase: "auth", requests: 3, passed: 1, failed: 2, warnings: 0 }]);
      expect(report.notes).toContain("--max-failures 2 reached: the requests after it were not sent");
    } finally {
      await broken.close();
    }
  });

  it("shows progress on stderr when it is a terminal, and nothing when it is not", async () => {
    const args = ["probe", "--base-url", sandbox.url, ...WITH_CREDENTIALS, "--operations", "getEddCase"];
    const terminal = await runMain(args, true);
    expect(terminal.status).toBe(0);
    expect(terminal.stderr.startsWith("\r\x1b[Kprobe: examples, 1 requests sent, 0 failed…")).toBe(true);
    // Cleared before the report: the terminal is left as it was.
    expect(terminal.stderr.endsWith("\r\x1b[K")).toBe(true);
    const piped = await runMain(args);
    expect(piped.status).toBe(0);
    expect(piped.stderr).toBe("");
  });

  it("ends the text report with a summary per phase, then the totals", async () => {
    const run = await runMainOrBinary([
      "probe",
      "--base-url",
      sandbox.url,
      ...WITH_CREDENTIALS,
      "--phases",
      "examples,auth",
      "--operations",
      "createPepCheck",
    ]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    const at = lines.findIndex((l) => /^Phase +requests +passed +failed +warnings$/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^examples +\d+ +\d+ +0 +0$/);
    expect(lines[at + 2]).toMatch(/^auth +6 +6 +0 +0$/);
    expect(lines[at + 3]).toBe("");
    expect(lines[at + 4]).toMatch(/^\d+ requests: \d+ passed, 0 failed, 0 warnings$/);
    expect(lines).toHaveLength(at + 5);
  });
});
