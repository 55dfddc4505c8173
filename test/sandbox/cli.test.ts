// The sandbox's command line: flags, generated credentials printed once, given ones never echoed,
// clear refusals of bad flags (naming the flag, not the value), SIGTERM stops it.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { cliLaunch } from "../support/cli-command.js";
import { CANARIES, containsCanary } from "../support/hostile.js";

/** Run `idv-sandbox` with `args` to its end (the sources, or the executable: test/support/cli-command.ts). */
function runSync(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const run = cliLaunch("idv-sandbox", args, env);
  return spawnSync(run.command, run.args, {
    cwd: fromRoot(),
    env: run.env,
    encoding: "utf8",
    timeout: 20_000,
  });
}

/** This process's environment without the credentials the sandbox would otherwise take from it. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const name of ["IDV_API_KEY", "IDV_API_SECRET", "PORT"]) if (!(name in extra)) delete env[name];
  return env;
}

/** Run the CLI until it says it listens (or exits); then SIGTERM it. Its output and exit code. */
async function runUntilListening(
  args: string[],
  beforeStop: (out: string) => void | Promise<void> = () => undefined,
  env: Record<string, string> = {},
): Promise<{ out: string; code: number | null; pid: number | undefined }> {
  const run = cliLaunch("idv-sandbox", args, cleanEnv(env));
  const child = spawn(run.command, run.args, {
    cwd: fromRoot(),
    env: run.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 20_000;
  while (!/listening on/.test(out) && child.exitCode === null && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await beforeStop(out);
  child.kill("SIGTERM");
  // The exit first: what it prints on the way out belongs to the output too.
  const code = await exited;
  return { out, code, pid: child.pid };
}

describe("npm run sandbox", () => {
  it("prints generated credentials once", async () => {
    const { out, code } = await runUntilListening(["--port", "0"]);
    expect(out).toMatch(/API key: sbx_key_[0-9a-f]{24}\n/);
    expect(out).toMatch(/Secret: +sbx_secret_[0-9a-f]{48}\n/);
    expect(code).toBe(0);
  });

  it("says so and exits 1 when the last save of --state fails on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-cli-"));
    // The folder goes away while the sandbox runs: the save on the way out cannot be written.
    const { out, code } = await runUntilListening(["--port", "0", "--state", join(dir, "state.json")], () =>
      rmSync(dir, { recursive: true, force: true }),
    );
    expect(out).toContain("sandbox: could not save the state: ENOENT");
    expect(code).toBe(1);
  });

  it("never echoes credentials it was given", async () => {
    const { out, code } = await runUntilListening([
      "--port",
      "0",
      "--key",
      CANARIES[0],
      "--secret",
      CANARIES[1],
      "--webhook-url",
      "http://127.0.0.1:9/idv/events",
      "--webhook-auth",
      `basic:${CANARIES[2]}:${CANARIES[3]}`,
    ]);
    expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain("Webhook receiver registered");
    expect(containsCanary(out)).toBe(false);
    expect(code).toBe(0);
  });

  it("--port 0 --json: the first line is JSON a script reads (the address, generated credentials)", async () => {
    const { out, code } = await runUntilListening(["--port", "0", "--json"]);
    const first = JSON.parse(out.split("\n")[0] ?? "");
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(first.control).toBe(`${first.url}/_sandbox`);
    expect(out).toContain(`API key: ${first.key}\n`);
    expect(out).toContain(`Secret:  ${first.secret}\n`);
    expect(code).toBe(0);
  });

  it("--json gives the server's own pid: the process that SIGTERM stops", async () => {
    const { out, code, pid } = await runUntilListening(["--port", "0", "--json"]);
    expect(JSON.parse(out.split("\n")[0] ?? "").pid).toBe(pid);
    expect(code).toBe(0);
  });

  it("takes IDV_API_KEY and IDV_API_SECRET from the environment, never echoing them", async () => {
    let status = 0;
    const { out, code } = await runUntilListening(
      ["--port", "0", "--json"],
      async (text) => {
        const { url } = JSON.parse(text.split("\n")[0] ?? "") as { url: string };
        const answer = await fetch(`${url}/api/v2/manual_eidv/${randomUUID()}/assets/pep_watchlist`, {
          headers: { "Svc-API-Key": CANARIES[0], "Svc-Secret": CANARIES[1] },
        });
        status = answer.status;
      },
      { IDV_API_KEY: CANARIES[0], IDV_API_SECRET: CANARIES[1] },
    );
    // Accepted: a record it does not have, not a refusal.
    expect(status).toBe(404);
    expect(Object.keys(JSON.parse(out.split("\n")[0] ?? ""))).toEqual(["url", "control", "pid"]);
    expect(out).not.toContain("API key:");
    expect(out).toContain("Credentials: IDV_API_KEY and IDV_API_SECRET from the environment.\n");
    expect(containsCanary(out)).toBe(false);
    expect(code).toBe(0);
  });

  it("--json never echoes credentials it was given; --print-url prints the address alone first", async () => {
    const given = await runUntilListening([
      "--port",
      "0",
      "--json",
      "--key",
      CANARIES[0],
      "--secret",
      CANARIES[1],
    ]);
    expect(Object.keys(JSON.parse(given.out.split("\n")[0] ?? ""))).toEqual(["url", "control", "pid"]);
    expect(containsCanary(given.out)).toBe(false);
    const plain = await runUntilListening(["--port", "0", "--print-url"]);
    expect(plain.out.split("\n")[0]).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(plain.code).toBe(0);
  });

  it.each([["--help"], ["-h"]])("%s prints every flag and exits 0 without listening", (flag) => {
    const run = runSync([flag]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: idv-sandbox/);
    for (const name of [
      "port",
      "host",
      "key",
      "secret",
      "webhook-url",
      "webhook-auth",
      "state",
      "json",
      "print-url",
    ])
      expect(run.stdout).toContain(`--${name} `);
    expect(run.stdout).not.toMatch(/listening/);
  });

  it.each([
    [["--key", "k"], /--key and --secret go together/],
    [
      ["--webhook-auth", `token:${CANARIES[0]}`, "--webhook-url", "http://x/"],
      /--webhook-auth must be bearer:TOKEN or basic:USER:PASS/,
    ],
    [["--webhook-url", "ftp://x/"], /^idv-sandbox: --webhook-url must be an absolute http or https URL/],
    [
      ["--webhook-url", "localhost:3000"],
      /^idv-sandbox: --webhook-url must be an absolute http or https URL/,
    ],
    [["--webhook-url", "127.0.0.1:3000/idv/events"], /^idv-sandbox: --webhook-url must be an absolute/],
    [
      ["--webhook-url", `http://u:${CANARIES[0]}@x/`],
      /^idv-sandbox: --webhook-url must not carry credentials/,
    ],
    [["--port", "99999"], /--port must be an integer/],
    [["--colour", "red"], /unknown flag --colour/],
    [["--port"], /--port needs a value/],
    [["--port", "--json"], /--port needs a value/],
    [["--json=yes"], /--json takes no value/],
    [["--json", "--print-url"], /--json and --print-url go apart/],
    [["serve"], /takes no arguments/],
  ])("refuses %j with exit 2, one line naming it, then the usage", (args, message) => {
    const run = runSync(args, cleanEnv());
    expect(run.status).toBe(2);
    const [line, blank, usage] = run.stderr.split("\n");
    expect(line).toMatch(message);
    expect([blank, usage]).toEqual(["", "Usage: idv-sandbox [options]"]);
    expect(run.stdout).toBe("");
    expect(containsCanary(run.stderr)).toBe(false);
  });

  it("exits 2 when it cannot start, a port in use (named) as a host it cannot listen on", async () => {
    const busy = createNetServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const run = (args: string[]) => runSync(args, cleanEnv());
      const inUse = run(["--port", String(port)]);
      expect(inUse.stderr).toBe(
        `sandbox: could not start: port ${port} on 127.0.0.1 is in use; pick another with --port (0 picks a free one)\n`,
      );
      expect(inUse.status).toBe(2);
      // 192.0.2.1 (TEST-NET-1) is no address of this machine.
      const host = run(["--port", "0", "--host", "192.0.2.1"]);
      expect(host.stderr).toMatch(/^sandbox: could not start: /);
      expect(host.status).toBe(2);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it("refuses IDV_API_KEY without IDV_API_SECRET, naming both and neither value", () => {
    const run = runSync([], cleanEnv({ IDV_API_KEY: CANARIES[0] }));
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^idv-sandbox: IDV_API_KEY and IDV_API_SECRET go together/);
    expect(containsCanary(run.stderr)).toBe(false);
  });
});
