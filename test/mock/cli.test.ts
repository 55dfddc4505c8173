// The mock as `npm run mock` starts it: compiled JavaScript (tsc with the package's build config),
// stopped by SIGTERM with its port freed, even while a client holds a connection open.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { compileToTemp } from "../support/compiled.js";

let out = "";
let remove = () => {};
beforeAll(() => {
  ({ out, remove } = compileToTemp("idv-mock-cli"));
}, 120_000);
const started: ChildProcess[] = [];
afterAll(() => {
  // Whatever a failed run left behind: each child leads its own process group.
  for (const child of started) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  remove();
});

/**
 * Start the compiled mock on a free port with package.json's own `mock` script line, run by the
 * shell as npm runs it (npm forwards SIGTERM to that shell, so the line must `exec` node for the
 * signal to reach the server). Resolves with the child and the URL it prints.
 */
function startCompiled(): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const script: string = JSON.parse(readFileSync(fromRoot("package.json"), "utf8")).scripts.mock;
  const line = `${script.replace("dist/", `${out}/`)} --port 0`;
  const child = spawn("sh", ["-c", line], {
    cwd: fromRoot(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started.push(child);
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start line: ${text}`)), 20_000);
    child.stdout?.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => text });
      }
    });
    child.on("exit", () => reject(new Error(`exited before listening: ${text}`)));
  });
}

/** Whether a TCP connection to the port is accepted. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

describe("the compiled mock", () => {
  it("--help prints its flags and exits 0 without listening", () => {
    const run = spawnSync(process.execPath, [`${out}/mock/cli.js`, "--help", "--port", "0"], {
      cwd: fromRoot(),
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run mock/);
    for (const name of ["port", "host", "key", "secret"]) expect(run.stdout).toContain(`--${name} `);
    expect(run.stdout).not.toMatch(/listening/);
  });

  it.each([
    [["--prot", "5000"], "mock: unknown flag --prot"],
    [["--port"], "mock: --port needs a value"],
    [["--port", "--host", "::1"], "mock: --port needs a value"],
    [["--key", "k"], "mock: --key and --secret go together"],
    [["--port", "70000"], 'mock: --port must be an integer from 0 to 65535, got "70000"'],
    [["serve"], "mock: the mock takes no arguments, only flags"],
  ])("%j is one line and the usage, exit 2, without listening", (argv, line) => {
    const run = spawnSync(process.execPath, [`${out}/mock/cli.js`, ...argv], {
      cwd: fromRoot(),
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(line);
    expect(run.stderr).toContain("Usage: npm run mock");
    expect(run.stdout).not.toMatch(/listening/);
  });

  it("a port in use is one line naming the port and the host, exit 2, as idv-sandbox says it", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const run = spawnSync(process.execPath, [`${out}/mock/cli.js`, "--port", String(port)], {
        cwd: fromRoot(),
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(run.stderr).toBe(
        `mock: could not start: port ${port} on 127.0.0.1 is in use; pick another with --port or PORT (0 picks a free one)\n`,
      );
      expect(run.status).toBe(2);
      expect(run.stdout).not.toMatch(/listening/);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it("answers from dist, and SIGTERM closes its port and exits 0 though a connection is open", async () => {
    const { child, url, output } = await startCompiled();
    const port = Number(new URL(url).port);
    const res = await fetch(`${url}/api/v4/outsource_cases/1042`, {
      headers: { "svc-api-key": "k", "svc-date": "2026-01-01T00:00:00Z", "svc-signature": "00" },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    // A client that keeps its connection open must not keep the server alive.
    const held = connect({ port, host: "127.0.0.1" });
    await new Promise((resolve) => held.on("connect", resolve));
    held.on("error", () => {});
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(await accepts(port)).toBe(false);
    held.destroy();
    expect(output()).toContain("GET /api/v4/outsource_cases/{id} → 200");
  });
});
