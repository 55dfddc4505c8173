// One sandbox per --state file: a second one on a file a live sandbox holds refuses to start
// (StateLockError; exit 2 from the CLI, naming the file and the process), a lock left by a dead
// process is taken over, and the lock goes when the sandbox stops.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { startSandbox as startPublic, StateLockError as PublicStateLockError } from "../../sandbox/index.js";
import { launchSandbox } from "../../sandbox/start.js";
import { isAlive, lockState, StateLockError } from "../../sandbox/state/lock.js";

const stateFile = () => join(mkdtempSync(join(tmpdir(), "sbx-lock-")), "state.json");

/** A process id that was alive and is no more: a child that ran and was reaped. */
const deadPid = (): number => {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid as number;
  expect(isAlive(pid)).toBe(false);
  return pid;
};

const refusal = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("lockState", () => {
  it("holds the file for this process until released; a second lock is refused, naming file and process", () => {
    const file = stateFile();
    const lock = lockState(file);
    expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
    const error = refusal(() => lockState(file));
    expect(error).toBeInstanceOf(StateLockError);
    expect(error).toMatchObject({ file, pid: process.pid });
    expect((error as Error).message).toBe(
      `state file ${file} is in use by another sandbox (process ${process.pid}); stop it, or give this one another state file`,
    );
    lock.release();
    lock.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
    lockState(file).release();
  });

  it("takes over a lock left by a dead process", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, `${deadPid()}\n`);
    const lock = lockState(file);
    expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
    expect(existsSync(`${file}.lock.takeover`)).toBe(false);
    lock.release();
  });

  it("takes over a takeover left by a process that died during it", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, `${deadPid()}\n`);
    writeFileSync(`${file}.lock.takeover`, `${deadPid()}\n`);
    lockState(file).release();
    expect(existsSync(`${file}.lock.takeover`)).toBe(false);
  });

  it("refuses while a live process takes over, and a lock that names no process", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, `${deadPid()}\n`);
    writeFileSync(`${file}.lock.takeover`, `${process.pid}\n`);
    expect(refusal(() => lockState(file))).toMatchObject({ file, pid: process.pid });
    const other = stateFile();
    // Being written by a sandbox starting now, or not a lock at all (pid 0 would name a process group).
    for (const text of ["", "0\n", "-1\n", "12ab\n"]) {
      writeFileSync(`${other}.lock`, text);
      const error = refusal(() => lockState(other));
      expect(error).toMatchObject({ file: other, pid: undefined });
      expect((error as Error).message).toContain(`if none is, remove ${other}.lock`);
    }
  });

  it("says so when the lock cannot be made (no such folder), naming the file and the error's code", () => {
    const file = join(stateFile(), "..", "missing", "state.json");
    const error = refusal(() => lockState(file));
    expect(error).toBeInstanceOf(StateLockError);
    expect((error as Error).message).toBe(
      `state file ${file} cannot be locked: ${file}.lock cannot be created (ENOENT)`,
    );
  });

  it("never writes through a symlink planted at the lock's name", () => {
    const file = stateFile();
    const target = join(file, "..", "elsewhere");
    writeFileSync(target, "kept");
    symlinkSync(target, `${file}.lock`);
    expect(refusal(() => lockState(file))).toBeInstanceOf(StateLockError);
    expect(readFileSync(target, "utf8")).toBe("kept");
  });

  it("lets one of two sandboxes take over a stale lock, never both", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, `${deadPid()}\n`);
    let second: ReturnType<typeof lockState> | undefined;
    // The second starts between the first's reading the stale lock and its taking it over.
    const first = refusal(() =>
      lockState(file, (pid) => {
        second ??= lockState(file);
        return isAlive(pid);
      }),
    );
    expect(second).toBeDefined();
    expect(first).toMatchObject({ file, pid: process.pid });
    expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
    second?.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("two sandboxes on one state file", () => {
  it("refuses the second until the first stops, startSandbox() with a typed error", async () => {
    const file = stateFile();
    const first = await launchSandbox({ port: 0, stateFile: file });
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toBeInstanceOf(StateLockError);
    const error = await startPublic({ state: file }).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PublicStateLockError);
    expect(error).toMatchObject({ file, pid: process.pid });
    await first.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    const again = await startPublic({ state: file });
    await again.close();
  });

  it("releases the lock when the start fails after it", async () => {
    const file = stateFile();
    writeFileSync(file, "not a state file\n");
    await expect(launchSandbox({ port: 0, stateFile: file })).rejects.toThrow("is not a sandbox state file");
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("idv-sandbox --state", () => {
  const ARGS = ["--import", "tsx", fromRoot("sandbox/cli.ts")];
  /** Every CLI started, so that none outlives a failing test. */
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });

  /** Start the CLI; resolves once it says it listens (or with its output, once it exits). */
  const start = (file: string) => {
    const child = spawn(process.execPath, [...ARGS, "--port", "0", "--state", file], {
      cwd: fromRoot(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let out = "";
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const ready = new Promise<void>((resolve) => {
      const read = (chunk: Buffer) => {
        out += chunk.toString();
        if (/listening on/.test(out)) resolve();
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
      void exited.then(() => resolve());
    });
    return { child, exited, ready: ready.then(() => out), output: () => out };
  };

  const stop = async (child: ChildProcess, exited: Promise<number | null>, signal: NodeJS.Signals) => {
    child.kill(signal);
    return exited;
  };

  it("exits 2 naming the file and the process when another sandbox holds it; takes over from a killed one", async () => {
    const file = stateFile();
    const first = start(file);
    expect(await first.ready).toContain("listening on");
    const second = start(file);
    expect(await second.exited).toBe(2);
    expect(second.output()).toContain(
      `sandbox: state file ${file} is in use by another sandbox (process ${first.child.pid})`,
    );
    // Killed, it leaves its lock: the next one takes it over.
    await stop(first.child, first.exited, "SIGKILL");
    expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${first.child.pid}\n`);
    const third = start(file);
    expect(await third.ready).toContain("listening on");
    expect(await stop(third.child, third.exited, "SIGTERM")).toBe(0);
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 60_000);
});
