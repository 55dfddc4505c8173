// One sandbox per --state file. Each writes the whole file on its changes, so two on one file lose
// whatever the other wrote, silently (the last writer wins). The file `STATE.lock` beside it names
// the sandbox that owns the state (lock-holder.ts) and is removed on stop. It is claimed whole: the
// text is written to a temporary file of this claim's own, then link()ed to the lock's name, which
// fails when the name exists (and never follows a symlink planted there).
//
// A lock whose holder is gone (killed, crashed, or its pid reused) is taken over, and never by
// removing the name: between judging a file stale and removing it, another sandbox may have put
// its own lock there. A stale lock is replaced by rename() only under a takeover lock named after
// that very file (its bytes and inode, hashed): `STATE.lock.takeover-ID`. Only its holder may
// replace file ID, and rechecks that the name still holds ID first; a file made later has another
// ID, so a takeover begun on a lock already replaced finds nothing to replace. A takeover lock left
// by a sandbox that died during it is stale in turn, and taken over the same way.
//
// Each step on the files is a yield of lockSteps(), so that a test can interleave several
// contenders in every order; lockState() runs the steps at once.
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import {
  formatHolder,
  type Holder,
  judge,
  linuxProc,
  MAX_LOCK_BYTES,
  parseHolder,
  type ProcFacts,
} from "./lock-holder.js";

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

/** Who takes the lock, and how a holder's liveness is read (tests give each contender its own). */
export interface LockOptions {
  /** Whether a process id is alive (kill(pid, 0) by default). */
  alive?: (pid: number) => boolean;
  /** /proc's facts (Linux's by default). */
  proc?: ProcFacts;
  /** The pid the lock names (this process's by default). */
  pid?: number;
  /** The token the lock carries (this module's by default). */
  token?: string;
}

/** Where lockSteps() is about to touch the files: before each step, another sandbox may act. */
export type LockStep = "link" | "read" | "recheck" | "replace" | "release";

/** This copy of the module's token: the locks this process makes carry it. */
const TOKEN = randomBytes(16).toString("hex");

/** Attempts at one name (a name that keeps changing under this sandbox is refused, not chased forever). */
const MAX_ROUNDS = 4;
/** Takeover locks taken over in a row, each left by a sandbox that died during its takeover. */
const MAX_DEPTH = 4;

/** Whether a process with this id is alive (EPERM: it is, but another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The lock's name, its state file and how it judges and writes holders. */
interface Context {
  file: string;
  lockFile: string;
  self: Holder;
  alive: (pid: number) => boolean;
  proc: ProcFacts;
}

/** A lock file as read: its holder (undefined when it names none) and its id (bytes and inode, hashed). */
interface Seen {
  holder: Holder | undefined;
  id: string;
}

const codeOf = (error: unknown): string => (error as NodeJS.ErrnoException)?.code ?? "error";

const cannot = (ctx: Context, path: string, what: string, error: unknown) =>
  new StateLockError(
    ctx.file,
    undefined,
    `state file ${ctx.file} cannot be locked: ${path} ${what} (${codeOf(error)})`,
  );

/** The refusal of a lock that names no process: being written by an older sandbox starting now, or not a lock. */
const namesNoProcess = (file: string, path: string) =>
  new StateLockError(
    file,
    undefined,
    `state file ${file} is locked by ${path}, which names no process yet (another sandbox is starting on it); if none is, remove ${path}`,
  );

const remove = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
};

/** Read a lock file, or "gone"; never through a symlink, never waiting on a FIFO. */
function readLock(path: string): Seen | "gone" {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return "gone";
    return { holder: undefined, id: "" };
  }
  try {
    const stat = fstatSync(fd);
    const buffer = Buffer.alloc(MAX_LOCK_BYTES + 1);
    const bytes = stat.isFile()
      ? buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0))
      : Buffer.alloc(0);
    const holder =
      stat.isFile() && bytes.length <= MAX_LOCK_BYTES ? parseHolder(bytes.toString("latin1")) : undefined;
    const id = createHash("sha256")
      .update(`${stat.dev}:${stat.ino}:`)
      .update(bytes)
      .digest("hex")
      .slice(0, 32);
    return { holder, id };
  } catch {
    return { holder: undefined, id: "" };
  } finally {
    closeSync(fd);
  }
}

/** A claim's text written whole to a file of its own beside the lock, ready to be linked or renamed. */
function writeClaim(ctx: Context, target: string): { path: string; claim: string } {
  const claim = randomBytes(16).toString("hex");
  const path = `${ctx.lockFile}.${claim}.tmp`;
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    throw cannot(ctx, target, "cannot be created", error);
  }
  try {
    writeSync(fd, formatHolder({ ...ctx.self, claim }));
  } catch (error) {
    throw cannot(ctx, target, "cannot be written", error);
  } finally {
    closeSync(fd);
  }
  return { path, claim };
}

/** Put the claim at `target` unless the name exists; false when it does. */
function link(ctx: Context, from: string, target: string): boolean {
  try {
    linkSync(from, target);
    return true;
  } catch (error) {
    const code = codeOf(error);
    if (code === "EEXIST") return false;
    // A file system without hard links: created exclusively by name instead, then written (a
    // reader may see it empty for that moment, and refuses it as naming no process).
    if (!["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"].includes(code))
      throw cannot(ctx, target, "cannot be created", error);
    return createByName(ctx, from, target);
  }
}

/** The claim at `target` by O_EXCL, where link() is not supported. */
function createByName(ctx: Context, from: string, target: string): boolean {
  let fd: number;
  try {
    fd = openSync(target, "wx", 0o600);
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    throw cannot(ctx, target, "cannot be created", error);
  }
  try {
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const fromFd = openSync(from, "r");
    try {
      writeSync(fd, buffer.subarray(0, readSync(fromFd, buffer, 0, buffer.length, 0)));
    } finally {
      closeSync(fromFd);
    }
  } catch (error) {
    closeSync(fd);
    // Its own, made just now: an empty lock would keep every sandbox out.
    remove(target);
    throw cannot(ctx, target, "cannot be written", error);
  }
  closeSync(fd);
  return true;
}

/**
 * Remove `path` if it is still this claim's. Nobody replaces it meanwhile: only a lock judged stale
 * is replaced, and this one's holder is running this.
 */
function releaseClaim(path: string, claim: string): void {
  const seen = readLock(path);
  if (seen !== "gone" && seen.holder?.claim === claim) remove(path);
}

/** Steps that claim `path` for ctx.self (taking over a stale holder's), returning the claim's id. */
function* claim(ctx: Context, path: string, depth: number): Generator<LockStep, string, void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const mine = writeClaim(ctx, path);
    try {
      yield "link";
      if (link(ctx, mine.path, path)) return mine.claim;
      yield "read";
      const seen = readLock(path);
      if (seen === "gone") continue;
      if (!seen.holder) throw namesNoProcess(ctx.file, path);
      if (judge(seen.holder, ctx.self, ctx.alive, ctx.proc) === "live")
        throw new StateLockError(ctx.file, seen.holder.pid);
      if (depth >= MAX_DEPTH)
        throw new StateLockError(
          ctx.file,
          undefined,
          `state file ${ctx.file} cannot be locked: ${path} was left by sandboxes that stopped while taking it over; if none is starting, remove ${path}`,
        );
      // Stale: replaced only under the takeover lock of this very file.
      const guard = `${ctx.lockFile}.takeover-${seen.id}`;
      const guardClaim = yield* claim(ctx, guard, depth + 1);
      try {
        yield "recheck";
        const now = readLock(path);
        if (now !== "gone" && now.id === seen.id) {
          yield "replace";
          try {
            renameSync(mine.path, path);
          } catch (error) {
            throw cannot(ctx, path, "cannot be created", error);
          }
          return mine.claim;
        }
        // Replaced by another's takeover, or removed: looked at again.
      } finally {
        yield "release";
        releaseClaim(guard, guardClaim);
      }
    } finally {
      // Linked (a second name of the lock), renamed (gone) or unused: this name is this claim's alone.
      remove(mine.path);
    }
  }
  throw new StateLockError(
    ctx.file,
    undefined,
    `state file ${ctx.file} cannot be locked: ${path} kept changing while this sandbox took it (other sandboxes are starting on it)`,
  );
}

/**
 * The steps that lock `file` (each yield is a point where another sandbox may act); returns the held
 * lock, or throws a StateLockError naming the file and the process holding it.
 */
export function* lockSteps(file: string, options: LockOptions = {}): Generator<LockStep, StateLock, void> {
  const proc = options.proc ?? linuxProc;
  const pid = options.pid ?? process.pid;
  const boot = proc.boot();
  const start = boot === undefined ? undefined : proc.start(pid);
  const self: Holder = {
    pid,
    token: options.token ?? TOKEN,
    ...(boot === undefined || start === undefined ? {} : { boot, start }),
  };
  const ctx: Context = { file, lockFile: `${file}.lock`, self, alive: options.alive ?? isAlive, proc };
  const held = yield* claim(ctx, ctx.lockFile, 0);
  let released = false;
  return {
    lockFile: ctx.lockFile,
    release: () => {
      if (released) return;
      released = true;
      // Only its own: a lock another sandbox took over (this one judged gone) is left alone.
      releaseClaim(ctx.lockFile, held);
    },
  };
}

/**
 * Lock `file` for this process, or throw a StateLockError naming the file and the process holding
 * it. A lock whose holder is gone is taken over.
 */
export function lockState(file: string, options: LockOptions = {}): StateLock {
  const steps = lockSteps(file, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
