// One sandbox per --state file: a second one on a file a live sandbox holds refuses to start
// (StateLockError; exit 2 from the CLI, naming the file and the process), a lock left by a dead
// process is taken over, and the lock goes when the sandbox stops.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fromRoot } from "../../scripts/lib/paths.js";
import { startSandbox as startPublic, StateLockError as PublicStateLockError } from "../../sandbox/index.js";
import { launchSandbox } from "../../sandbox/start.js";
import { isAlive, lockState, lockSteps, StateLockError } from "../../sandbox/state/lock.js";
import { formatHolder, linuxProc, parseHolder, type ProcFacts } from "../../sandbox/state/lock-holder.js";

const stateFile = () => join(mkdtempSync(join(tmpdir(), "sbx-lock-")), "state.json");

/** A process id that was alive and is no more: a child that ran and was reaped. */
const deadPid = (): number => {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid as number;
  expect(isAlive(pid)).toBe(false);
  return pid;
};

/** The process a lock file names. */
const holderPid = (file: string) => parseHolder(readFileSync(`${file}.lock`, "latin1"))?.pid;

/** The files beside the state file: the lock alone once a takeover is done (no takeover lock, no claim left). */
const beside = (file: string) => readdirSync(join(file, "..")).sort();

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
    expect(holderPid(file)).toBe(process.pid);
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
    expect(holderPid(file)).toBe(process.pid);
    expect(beside(file)).toEqual(["state.json.lock"]);
    lock.release();
    expect(beside(file)).toEqual([]);
  });

  it("takes over a takeover left by a process that died during it", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, `${deadPid()}\n`);
    // A sandbox that dies holding the takeover lock: its steps stop there, and its pid is dead.
    const ghost = deadPid();
    const dying = lockSteps(file, { pid: ghost, token: "0".repeat(32) });
    for (let i = 0; dying.next().value !== "recheck"; i++) expect(i).toBeLessThan(20);
    expect(beside(file).some((name) => name.startsWith("state.json.lock.takeover-"))).toBe(true);
    lockState(file).release();
    // Only the ghost's unused claim is left: no lock, no takeover lock.
    expect(beside(file).filter((name) => !name.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses while a live process takes over, and a lock that names no process", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, `${deadPid()}\n`);
    // Another live process (this one's parent) in the middle of its takeover.
    const taking = lockSteps(file, { pid: process.ppid, token: "1".repeat(32) });
    for (let i = 0; taking.next().value !== "recheck"; i++) expect(i).toBeLessThan(20);
    expect(refusal(() => lockState(file))).toMatchObject({ file, pid: process.ppid });
    const other = stateFile();
    // Being written by an older sandbox starting now, or not a lock at all (pid 0 would name a process group).
    for (const text of ["", "0\n", "-1\n", "12ab\n", "12\ntoken zz\n", `12\n${"x".repeat(300)}\n`]) {
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
      lockState(file, {
        alive: (pid) => {
          second ??= lockState(file);
          return isAlive(pid);
        },
      }),
    );
    expect(second).toBeDefined();
    expect(first).toMatchObject({ file, pid: process.pid });
    expect(holderPid(file)).toBe(process.pid);
    second?.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("a lock naming a pid that is now another process's", () => {
  const boot = linuxProc.boot();
  const onLinux = boot !== undefined && linuxProc.start(process.pid) !== undefined;
  const otherToken = "2".repeat(32);
  const NO_PROC: ProcFacts = { boot: () => undefined, start: () => undefined };

  it.runIf(onLinux)(
    "takes over a lock with this process's pid and another token: a restarted container's pid 1",
    () => {
      const file = stateFile();
      // The sandbox before the restart: pid 1 then, pid 1 now, started at another tick of this boot.
      const before = Number(linuxProc.start(process.pid)) - 1;
      writeFileSync(
        `${file}.lock`,
        formatHolder({ pid: process.pid, token: otherToken, boot, start: `${before}` }),
      );
      lockState(file).release();
      // An older version's lock with this pid: no token, so not this process's.
      writeFileSync(`${file}.lock`, `${process.pid}\n`);
      lockState(file).release();
      expect(beside(file)).toEqual([]);
    },
  );

  it.runIf(onLinux)(
    "refuses one with this pid, boot and start: this process, through another copy of the lock",
    () => {
      const file = stateFile();
      const start = linuxProc.start(process.pid);
      writeFileSync(`${file}.lock`, formatHolder({ pid: process.pid, token: otherToken, boot, start }));
      expect(refusal(() => lockState(file))).toMatchObject({ file, pid: process.pid });
    },
  );

  it.runIf(onLinux)(
    "takes over a live pid whose start time or boot is not the lock's; refuses its own",
    () => {
      const file = stateFile();
      const pid = process.ppid;
      const start = linuxProc.start(pid) as string;
      writeFileSync(
        `${file}.lock`,
        formatHolder({ pid, token: otherToken, boot, start: `${Number(start) + 1}` }),
      );
      lockState(file).release();
      writeFileSync(`${file}.lock`, formatHolder({ pid, token: otherToken, boot: "0".repeat(36), start }));
      lockState(file).release();
      writeFileSync(`${file}.lock`, formatHolder({ pid, token: otherToken, boot, start }));
      expect(refusal(() => lockState(file))).toMatchObject({ file, pid });
    },
  );

  it("without /proc, refuses a lock with this process's pid and any live pid's, as before", () => {
    const file = stateFile();
    writeFileSync(`${file}.lock`, formatHolder({ pid: process.pid, token: otherToken }));
    expect(refusal(() => lockState(file, { proc: NO_PROC }))).toMatchObject({ file, pid: process.pid });
    writeFileSync(
      `${file}.lock`,
      formatHolder({ pid: process.ppid, token: otherToken, boot: "0".repeat(36), start: "1" }),
    );
    expect(refusal(() => lockState(file, { proc: NO_PROC }))).toMatchObject({ file, pid: process.ppid });
    // Its own token: held by this process, refused with /proc or without.
    const lock = lockState(file, { proc: NO_PROC, alive: () => false });
    expect(refusal(() => lockState(file, { proc: NO_PROC }))).toMatchObject({ file, pid: process.pid });
    expect(refusal(() => lockState(file))).toMatchObject({ file, pid: process.pid });
    lock.release();
  });

  it.runIf(onLinux)("reads the start time after a process name with spaces and parentheses", () => {
    // Field 22 counts from the last ")": the name of this process cannot shift it.
    const text = readFileSync(`/proc/${process.pid}/stat`, "latin1");
    expect(linuxProc.start(process.pid)).toBe(text.slice(text.lastIndexOf(")") + 2).split(" ")[19]);
    expect(linuxProc.start(2 ** 31 - 1)).toBeUndefined();
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
    expect(holderPid(file)).toBe(first.child.pid);
    const third = start(file);
    expect(await third.ready).toContain("listening on");
    expect(await stop(third.child, third.exited, "SIGTERM")).toBe(0);
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 60_000);
});
