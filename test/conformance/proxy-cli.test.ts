// The proxy as one CI step: a report in any format, to stdout or --out, a summary when it stops,
// and `-- CMD…` run with IDV_BASE_URL pointing at the proxy, stopping it when it ends.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProxy } from "../../conformance/proxy/proxy-cli.js";
import { type RunningMock, startMock } from "../../mock/server.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { cliLaunch } from "../support/cli-command.js";
import { V4 } from "../support/mock.js";
import { tempDir } from "./support/cli.js";
import { Capture, runMain } from "./support/in-process.js";

const dir = tempDir();
let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock({ port: 0 });
});
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A conforming GET and, when `broken`, a POST without credentials (the request does not conform). */
async function traffic(url: string, broken: boolean): Promise<void> {
  await fetch(`${url}/api/v4/outsource_cases/1042`, { headers: V4 }).then((r) => r.arrayBuffer());
  if (broken)
    await fetch(`${url}/api/v4/pep_checks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    }).then((r) => r.arrayBuffer());
}

/** Run the proxy with `args`, send `traffic`, stop it; its status and output. */
async function proxied(args: string[], broken: boolean) {
  const stdout = new Capture();
  const stderr = new Capture();
  let stop = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let listened = (_url: string): void => undefined;
  const listening = new Promise<string>((resolve) => (listened = resolve));
  const finished = runProxy(["proxy", "--upstream", mock.url, "--port", "0", ...args], {
    stdout,
    stderr,
    stopped,
    onListening: (url) => listened(url),
  });
  const url = await Promise.race([
    listening,
    finished.then((code) => Promise.reject(new Error(`proxy exited ${code}: ${stderr.text}`))),
  ]);
  await traffic(url, broken);
  stop();
  return { status: await finished, stdout: stdout.text, stderr: stderr.text };
}

/** A Node script as a command: it runs `body` (with `url` = IDV_BASE_URL), then exits `code`. */
const script = (body: string, code = 0): string[] => [
  process.execPath,
  "-e",
  `(async () => { const url = process.env.IDV_BASE_URL; ${body}; process.exit(${code}); })()`,
];

/** A command's request: the conforming GET, or the POST without credentials. */
const GET = `await fetch(url + "/api/v4/outsource_cases/1042", { headers: ${JSON.stringify(V4)} }).then((r) => r.arrayBuffer())`;
const BAD_POST = `await fetch(url + "/api/v4/pep_checks", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then((r) => r.arrayBuffer())`;

/** Run the proxy around a command (no stop signal: it stops when the command ends). */
async function around(command: string[], extra: string[] = []) {
  const stdout = new Capture();
  const stderr = new Capture();
  let proxyUrl = "";
  const status = await runProxy(
    ["proxy", "--upstream", mock.url, "--port", "0", ...extra, "--", ...command],
    { stdout, stderr, onListening: (url) => (proxyUrl = url) },
  );
  return { status, stdout: stdout.text, stderr: stderr.text, proxyUrl };
}

describe("idv-conformance proxy reports for CI", () => {
  it("--format json --out FILE: the report in the file, violations and the summary on stderr, exit 1", async () => {
    const out = join(dir, "proxy.json");
    const run = await proxied(["--format", "json", "--out", out], true);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^✗ POST \/api\/v4\/pep_checks \(createPepCheck\)$/m);
    expect(run.stderr).toMatch(/^2 exchanges checked: 1 conform, 1 do not, 0 warnings$/m);
    const report = JSON.parse(readFileSync(out, "utf8"));
    expect(report.summary).toEqual({ entries: 2, passed: 1, failed: 1, warnings: 0 });
    expect(report.entries.map((e: { operationId: string; ok: boolean }) => [e.operationId, e.ok])).toEqual([
      ["getEddCase", true],
      ["createPepCheck", false],
    ]);
  });

  it("--format junit: stdout holds the JUnit document alone", async () => {
    const run = await proxied(["--format", "junit"], true);
    expect(run.status).toBe(1);
    expect(
      run.stdout.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="idv-conformance proxy" tests="2" failures="1"',
      ),
    ).toBe(true);
    expect(run.stdout.trimEnd().endsWith("</testsuites>")).toBe(true);
  });

  it("--format sarif: a SARIF log on stdout, each live exchange a logical location", async () => {
    const run = await proxied(["--format", "sarif"], true);
    expect(run.status).toBe(1);
    const log = JSON.parse(run.stdout);
    expect(log.version).toBe("2.1.0");
    const results = log.runs[0].results;
    const result = results.find((r: { ruleId: string }) => r.ruleId === "auth_headers_present");
    // On the contract's source line; the live exchange, which no file holds, a related logical location.
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe(
      "openapi/paths/api_v4_pep_checks.yaml",
    );
    const [exchange, contract] = result.relatedLocations;
    expect(exchange.physicalLocation).toBeUndefined();
    expect(exchange.logicalLocations[0].name).toBe("entry 1");
    expect(contract.properties.jsonPointer).toBe("/paths/~1api~1v4~1pep_checks/post/security");
  });

  it("--format text --out FILE: the grouped text report in the file; exit 0 when all conformed", async () => {
    const out = join(dir, "proxy.txt");
    const run = await proxied(["--format", "text", "--out", out], false);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    expect(readFileSync(out, "utf8")).toMatch(/\n1 checked: 1 passed, 0 failed, 0 warnings\n$/);
  });

  it("refuses an unwritable --out before it listens", async () => {
    const run = await runMain([
      "proxy",
      "--upstream",
      mock.url,
      "--port",
      "0",
      "--out",
      join(dir, "none", "r.json"),
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^idv-conformance: \S+r\.json: cannot be written\n$/);
  });
});

describe("idv-conformance proxy -- CMD…", () => {
  it("runs CMD with IDV_BASE_URL at the proxy, its output on stderr, and stops when it ends: exit 0", async () => {
    const run = await around(script(`console.log("base " + url); ${GET}`));
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`base ${run.proxyUrl}\n`);
    expect(run.stdout).toBe("1 exchanges checked: 1 conform, 0 do not, 0 warnings\n");
  });

  it("exits 1 when the traffic did not conform, though the command succeeded", async () => {
    const run = await around(script(`${GET}; ${BAD_POST}`), ["--format", "json"]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).summary).toEqual({ entries: 2, passed: 1, failed: 1, warnings: 0 });
  });

  it("exits 1 when the command failed, though the traffic conformed, and says how it ended", async () => {
    const run = await around(script(GET, 3));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("idv-conformance proxy: the command exited 3\n");
  });

  it("leaves the flags after -- to the command", async () => {
    // The second -- is the command's own, ending node's options.
    const run = await around([
      ...script(`console.log(process.argv.slice(1).join(" "))`),
      "--",
      "--colour",
      "red",
    ]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("--colour red\n");
  });

  it("exits 2 when the command cannot be started, naming why", async () => {
    const run = await around(["idv-no-such-command-9f2e"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("idv-conformance proxy: the command could not be started (ENOENT)\n");
  });

  it("refuses -- with no command after it", async () => {
    const run = await around([]);
    expect(run.status).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("idv-conformance: -- must be followed by a command");
  });

  it("on SIGTERM while the command runs: passes it on, waits for the command, reports, exits 1", async () => {
    // The command says it is ready, then waits for a signal; its output reaches the proxy's stderr.
    const command = script(
      `console.log("ready"); await new Promise(() => setInterval(() => undefined, 1000))`,
    );
    const cli = cliLaunch("idv-conformance", [
      "proxy",
      "--upstream",
      mock.url,
      "--port",
      "0",
      "--",
      ...command,
    ]);
    const child = spawn(cli.command, cli.args, {
      cwd: fromRoot(),
      env: cli.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (c: Buffer) => {
        err += c.toString();
        if (/^ready$/m.test(err)) resolve();
      });
      child.once("exit", () => reject(new Error(err)));
    });
    child.kill("SIGTERM");
    expect(await exited).toBe(1);
    expect(err).toContain("idv-conformance proxy: the command was ended by SIGTERM\n");
    expect(out).toBe("0 exchanges checked: 0 conform, 0 do not, 0 warnings\n");
  });
});
