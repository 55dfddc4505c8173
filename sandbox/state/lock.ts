// One sandbox per --state file. Each writes the whole file on its changes, so two on one file lose
// whatever the other wrote, silently (the last writer wins). The file `STATE.lock` beside it is
// created atomically (open with O_CREAT|O_EXCL, which also refuses a symlink planted at that name)
// and holds the process id of the sandbox that owns the state; it is removed on stop. A lock whose
// process is gone (killed, crashed) is taken over: the lock `STATE.lock.takeover`, created the same
// way, lets one starting sandbox at a time do that, so two never both take one stale lock.
import { closeSync, constants, openSync, readSync, unlinkSync, writeSync } from "node:fs";

/** The state file is in use by another sandbox; names the file and the process holding it, when known. */
export class StateLockError extends Error {
  /** The state file. */
  readonly file: string;
  /** The process id holding it, when the lock names one. */
  readonly pid: number | undefined;

  /** `message` replaces the one naming the process (when the lock names none, or cannot be made). */
  constructor(file: string, pid: number | undefined, message?: string) {
    super(
      message ??
        `state file ${file} is in use by another sandbox (process ${pid}); stop it, or give this one another state file`,
    );
    this.name = "StateLockError";
    this.file = file;
    this.pid = pid;
  }
}

/** A held lock; `release()` removes it (safe to call twice). */
export interface StateLock {
  readonly lockFile: string;
  release(): void;
}

const remove = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
};

/** Create `path` holding this process's id, or false when it exists already; a StateLockError when it cannot be made. */
function create(file: string, path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    if (code === "EEXIST") return false;
    throw new StateLockError(
      file,
      undefined,
      `state file ${file} cannot be locked: ${path} cannot be created (${code})`,
    );
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } catch (error) {
    // An empty lock would keep every sandbox out: none is left.
    closeSync(fd);
    remove(path);
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new StateLockError(
      file,
      undefined,
      `state file ${file} cannot be locked: ${path} cannot be written (${code})`,
    );
  }
  closeSync(fd);
  return true;
}

/** The refusal of a lock that names no process: being written by a sandbox starting now, or not a lock. */
const namesNoProcess = (file: string, path: string) =>
  new StateLockError(
    file,
    undefined,
    `state file ${file} is locked by ${path}, which names no process yet (another sandbox is starting on it); if none is, remove ${path}`,
  );

/** The process id a lock file holds, or undefined when it holds none (being written, or not a lock). */
function holder(path: string): number | undefined | "gone" {
  let fd: number;
  try {
    // Never through a symlink, never waiting on a FIFO.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(32);
    const text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString("latin1");
    // A positive id only: kill(0) or kill(-1) would name a process group, not a process.
    const match = /^([1-9]\d{0,9})\n?$/.exec(text);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether a process with this id is alive (EPERM: it is, but another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Lock `file` for this process, or throw a StateLockError naming the file and the process holding
 * it. A lock whose process is dead is taken over. `alive` is the liveness check (tests pass theirs).
 */
export function lockState(file: string, alive: (pid: number) => boolean = isAlive): StateLock {
  const lockFile = `${file}.lock`;
  const held = (): StateLock => {
    let released = false;
    return {
      lockFile,
      release: () => {
        if (released) return;
        released = true;
        // Only its own: a lock another process took over after this one was gone is left alone.
        if (holder(lockFile) === process.pid) remove(lockFile);
      },
    };
  };
  if (create(file, lockFile)) return held();
  const pid = holder(lockFile);
  if (pid === undefined) throw namesNoProcess(file, lockFile);
  if (pid !== "gone" && alive(pid)) throw new StateLockError(file, pid);
  // Stale (or removed just now): one starting sandbox at a time takes it over.
  const takeover = `${lockFile}.takeover`;
  if (!create(file, takeover)) {
    const other = holder(takeover);
    // Left by a sandbox that died taking over: removed, and taken once more.
    const stale = typeof other === "number" && !alive(other);
    if (stale) remove(takeover);
    if (!stale || !create(file, takeover))
      throw typeof other === "number" ? new StateLockError(file, other) : namesNoProcess(file, takeover);
  }
  try {
    // Read again under the takeover lock: another sandbox may have taken it over meanwhile.
    const now = holder(lockFile);
    if (now === undefined) throw namesNoProcess(file, lockFile);
    if (now !== "gone" && alive(now)) throw new StateLockError(file, now);
    remove(lockFile);
    if (!create(file, lockFile)) {
      const taken = holder(lockFile);
      throw typeof taken === "number" ? new StateLockError(file, taken) : namesNoProcess(file, lockFile);
    }
    return held();
  } finally {
    remove(takeover);
  }
}
