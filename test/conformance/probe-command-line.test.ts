// `idv-conformance probe`'s command line (loopback hosts, credentials from the environment, the
// report files), its reproducers run by bash against the sandbox, and a host that is not loopback.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PHASES } from "../../conformance/probe/probe-case.js";
import type { RunningSandbox } from "../../sandbox/start.js";
import { startBrokenServer } from "./fixtures/probe/broken-servers.js";
import {
  CREDENTIALS,
  type JsonReport,
  probe,
  probeWith,
  startProbedSandbox,
} from "./fixtures/probe/probe-run.js";
import { runInProcess } from "./fixtures/probe/run-cli.js";
import { tempDir } from "./support/cli.js";

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startProbedSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe("the command line", () => {
  it("refuses a host that is not loopback unless --allow-host names it, before sending anything", async () => {
    const run = await runInProcess([
      "probe",
      "--base-url",
      "https://api.example.com",
      "--key",
      "k",
      "--secret",
      "s",
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--base-url is not a loopback host");
    expect(run.stderr).toContain("--allow-host");
    const credentialsInUrl = await runInProcess([
      "probe",
      "--base-url",
      "http://user:pw@127.0.0.1:1",
      "--key",
      "k",
      "--secret",
      "s",
    ]);
    expect(credentialsInUrl.status).toBe(2);
    expect(credentialsInUrl.stderr).not.toContain("pw@");
  });

  it("takes the deployment and credentials from IDV_BASE_URL, IDV_API_KEY and IDV_API_SECRET, and says what is missing without them", async () => {
    const names = ["IDV_BASE_URL", "IDV_API_KEY", "IDV_API_SECRET", "IDV_SECRET"] as const;
    const saved = new Map(names.map((n) => [n, process.env[n]]));
    try {
      for (const n of names) delete process.env[n];
      const missing = await runInProcess(["probe", "--base-url", sandbox.url]);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain(
        "probe needs credentials: IDV_API_KEY and IDV_API_SECRET in the environment, or --key and --secret",
      );
      const noUrl = await runInProcess(["probe"]);
      expect(noUrl.stderr).toContain("probe needs --base-url URL (or IDV_BASE_URL in the environment)");
      process.env.IDV_BASE_URL = sandbox.url;
      process.env.IDV_API_KEY = CREDENTIALS.apiKey;
      process.env.IDV_API_SECRET = CREDENTIALS.secret;
      const run = await runInProcess(["probe", "--operations", "createPepCheck", "--format", "json"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect((JSON.parse(run.stdout) as JsonReport).summary.requests).toBeGreaterThan(10);
      // The name before 1.1 still works, with a warning that names the one to use.
      delete process.env.IDV_API_SECRET;
      process.env.IDV_SECRET = CREDENTIALS.secret;
      const old = await runInProcess(["probe", "--operations", "getEddCase", "--format", "json"]);
      expect(old.status).toBe(0);
      expect(old.stderr).toBe("idv-conformance probe: IDV_SECRET is deprecated: name it IDV_API_SECRET\n");
    } finally {
      for (const [n, v] of saved)
        if (v === undefined) delete process.env[n];
        else process.env[n] = v;
    }
  }, 60_000);

  it("refuses an unknown phase and names the phases", async () => {
    const run = await runInProcess([
      "probe",
      "--base-url",
      sandbox.url,
      "--key",
      "k",
      "--secret",
      "s",
      "--phases",
      "examples,fuzz",
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`unknown phase "fuzz" (phases: ${PHASES.join(", ")})`);
  });

  it("writes JUnit a CI system reads: a suite per phase, a failure per failed request with its reproducer", async () => {
    const broken = await startBrokenServer("ignores-signatures", { url: sandbox.url, ...CREDENTIALS });
    try {
      const args = ["--phases", "examples,auth", "--operations", "createPepCheck", "--format", "junit"];
      const run = await probeWith(broken.url, [...args]);
      expect(run.status).toBe(1);
      const xml = run.stdout;
      expect(
        xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="idv-conformance probe"'),
      ).toBe(true);
      expect(xml.match(/<testsuite /g)).toHaveLength(2);
      const failures = xml.match(/<failure message="auth_refused: answered 200; expected 401"/g) ?? [];
      expect(failures.length).toBe(4);
      expect(xml).toMatch(/tests="\d+" failures="4" errors="0"/);
      expect(xml).toContain("Reproduce:\nBODY=$&apos;{");
      expect(xml).toContain("curl -sS -i -X POST");
      expect(xml).toContain("openssl dgst -sha256 -hmac &quot;$IDV_API_SECRET&quot;");
      expect(xml).not.toContain(CREDENTIALS.secret);
      // Every element opened is closed: the document is whole.
      expect(xml.match(/<testcase /g)?.length).toBe(xml.match(/<\/testcase>/g)?.length);
      const text = await probeWith(broken.url, [...args.slice(0, -2)]);
      expect(text.stdout).toContain("✗ auth: wrong signature (POST /api/v4/pep_checks → 200)");
      expect(text.stdout).toContain('-H "Svc-API-Key: $IDV_API_KEY"');
      expect(text.stdout).toMatch(/createPepCheck\s+\d+\s+[\d.]+\s+[\d.]+/);
    } finally {
      await broken.close();
    }
  }, 60_000);
});

describe("the reproducer", () => {
  it("sends the same request again: run by bash against the sandbox, its v4 signature and v2 secret are accepted", async () => {
    // The broken server refuses the contract's examples; the reproducers, sent to the sandbox itself, are accepted.
    const broken = await startBrokenServer("refuses-example", { url: sandbox.url, ...CREDENTIALS });
    const brokenV2 = await startBrokenServer("server-error", { url: sandbox.url, ...CREDENTIALS });
    try {
      const v4 = await probe(broken.url, ["--phases", "examples", "--operations", "createPepCheck"]);
      const v2 = await probe(brokenV2.url, ["--phases", "examples", "--operations", "getManualPepWatchlist"]);
      const lines = [...v4.report.results, ...v2.report.results]
        .filter((r) => !r.ok)
        .map((r) => r.curl ?? "");
      expect(lines).toHaveLength(2);
      for (const [line, from] of [
        [lines[0]!, broken.url],
        [lines[1]!, brokenV2.url],
      ] as const) {
        expect(line).not.toContain(CREDENTIALS.secret);
        // Not spawnSync: the sandbox answering curl runs in this process.
        const run = await promisify(execFile)("bash", ["-c", line.replace(from, sandbox.url)], {
          env: { ...process.env, IDV_API_KEY: CREDENTIALS.apiKey, IDV_API_SECRET: CREDENTIALS.secret },
          encoding: "utf8",
          timeout: 20_000,
        });
        const status = /^HTTP\/1\.1 (\d{3})/.exec(run.stdout)?.[1];
        // 200 for the PEP check; 404 for the watchlist of an example id the sandbox does not have: not 401.
        expect([line.includes("pep_checks") ? "200" : "404"]).toContain(status);
      }
    } finally {
      await broken.close();
      await brokenV2.close();
    }
  }, 60_000);
});

describe("a host that is not loopback, named by --allow-host", () => {
  it("is probed, and operations on a record get ids it cannot have, never the contract's example ids", async () => {
    // An IPv4-mapped address: this machine, but not a host the probe treats as loopback.
    const url = sandbox.url.replace("127.0.0.1", "[::ffff:127.0.0.1]");
    const refused = await runInProcess(["probe", "--base-url", url, "--key", "k", "--secret", "s"]);
    expect(refused.status).toBe(2);
    const har = join(tempDir(), "remote.har");
    const { status, report } = await probe(url, [
      "--allow-host",
      "::ffff:7f00:1",
      "--read-only",
      "--record",
      har,
    ]);
    expect(status).toBe(0);
    expect(report.notes.some((n) => n.startsWith("not a loopback host"))).toBe(true);
    // The generative phase, which creates a record per draw, runs there only when named.
    expect(report.results.filter((r) => r.phase === "generative")).toEqual([]);
    expect(report.notes).toContainEqual(
      expect.stringMatching(/^generative: not run: the host is not loopback/),
    );
    const urls = (
      JSON.parse(readFileSync(har, "utf8")) as { log: { entries: { request: { url: string } }[] } }
    ).log.entries.map((e) => e.request.url);
    expect(urls.length).toBe(report.summary.requests);
    for (const u of urls) {
      expect(u).not.toMatch(/\/1042(\/|$|\.pdf)/);
      expect(u).not.toContain("5f3c9a0e-8d2b-4f61-9c7a-2b1e4d6f8a90");
    }
    expect(new Set(report.results.filter((r) => r.phase === "examples").map((r) => r.status))).toEqual(
      new Set([404]),
    );
  }, 60_000);
});
