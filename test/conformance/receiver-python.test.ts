// examples/python/: the receiver on http.server passes run_vectors.py and the `receiver` battery of
// the repository's CLI; receivers with one fault each fail run_vectors.py with a non-zero exit.
// Debian's python3, standard library only (nothing from pip).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { ActiveResult } from "../../conformance/probe/active-report.js";
import { fromRoot } from "../../scripts/lib/paths.js";
import { runCliProcess } from "../support/cli-command.js";

const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const TOKEN = "py-receiver-token-7f3a";
const WORKFLOW_PATH = "/idv/cases/9b1c44e0a2";
const RECEIVER = fromRoot("examples/python/receiver.py");
const BROKEN = fromRoot("test/conformance/fixtures/python/broken_receiver.py");
const RUNNER = fromRoot("examples/python/run_vectors.py");
const vectors = (await import("../../vectors/receiver.json", { with: { type: "json" } })).default;

interface Running {
  url: string;
  child: ChildProcess;
  /** Stops the receiver (SIGTERM: it finishes every request's handler first) and gives its stdout. */
  stop: () => Promise<string>;
}

const started: Running[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop()));
});

/** Start a Python receiver on a free loopback port; resolves once it says where it listens. */
function startReceiver(args: string[]): Promise<Running> {
  const child = spawn(
    PYTHON,
    [...args, "--port", "0", "--auth", `bearer:${TOKEN}`, "--workflow-path", WORKFLOW_PATH],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  // "close", not "exit": the process may exit before its last lines are read from the pipe.
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the receiver exited (${code}) before listening: ${err}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (!match || started.some((r) => r.child === child)) return;
      const running: Running = {
        url: match[1]!,
        child,
        stop: async () => {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
          return out;
        },
      };
      started.push(running);
      resolve(running);
    });
  });
}

/** Run run_vectors.py against a receiver: its exit status and output. */
function runVectors(url: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    PYTHON,
    [RUNNER, `${url}/idv/events`, "--auth", `bearer:${TOKEN}`, "--workflow-path", WORKFLOW_PATH],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}

describe("the Python receiver (examples/python/receiver.py)", () => {
  it("passes every vector of run_vectors.py, and runs its handler where the vectors say", async () => {
    const receiver = await startReceiver([RECEIVER]);
    const run = await runVectors(receiver.url);
    expect(run.stdout).toBe(`${vectors.vectors.length} passed, 0 failed\n`);
    expect(run.status).toBe(0);
    const handled = (await receiver.stop()).split("\n").filter((line) => line.startsWith("handled "));
    // Each vector whose handler runs, and the first liveness delivery (the second is its duplicate).
    const expected = vectors.vectors.filter((v) => v.expect.handler_runs).length + 1;
    expect(handled).toHaveLength(expected);
    expect(handled).toContain("handled workflow case.completed");
  });

  it("passes the receiver battery of idv-conformance", async () => {
    const receiver = await startReceiver([RECEIVER]);
    // As a process: by npm run test:binaries, the single executable's battery (issue 45).
    const run = await runCliProcess("idv-conformance", [
      "receiver",
      `${receiver.url}/idv/events`,
      "--auth",
      `bearer:${TOKEN}`,
      "--workflow-url",
      `${receiver.url}${WORKFLOW_PATH}`,
      "--format",
      "json",
    ]);
    const report = JSON.parse(run.stdout) as { results: ActiveResult[]; notes: string[] };
    expect(report.results.flatMap((r) => r.violations)).toEqual([]);
    // Slowness is the machine's, not the receiver's: every other warning counts.
    expect(report.results.flatMap((r) => r.warnings).filter((w) => w.check !== "time_to_ack")).toEqual([]);
    expect(report.notes).toEqual([]);
    expect(run.status).toBe(0);
  });
});

describe("run_vectors.py against a broken receiver", () => {
  it.each([
    ["any-credentials", ["13-no-credentials", "14-wrong-credentials"]],
    ["parse-first", ["17-malformed-json"]],
  ])("%s fails, naming the vectors it breaks, with a non-zero exit", async (fault, failing) => {
    const receiver = await startReceiver([BROKEN, fault]);
    const run = await runVectors(receiver.url);
    const failed = run.stdout
      .split("\n")
      .filter((line) => line.startsWith("FAIL "))
      .map((line) => line.split(" ")[1]);
    expect(failed).toEqual(failing);
    expect(run.stdout).toContain(
      `${vectors.vectors.length - failing.length} passed, ${failing.length} failed`,
    );
    expect(run.status).toBe(1);
  });

  it("exits 2 on unusable input, without echoing the credential", async () => {
    const child = spawn(PYTHON, [
      RUNNER,
      "http://127.0.0.1:9/idv/events",
      "--auth",
      "token-s3cret",
      "--workflow-path",
      "/x",
    ]);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const status = await new Promise((resolve) => child.once("close", resolve));
    expect(status).toBe(2);
    expect(stderr).toContain("--auth must be bearer:TOKEN or basic:USER:PASS");
    expect(stderr).not.toContain("s3cret");
  });
});
