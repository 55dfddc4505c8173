// Who holds a state lock, as its file says, and whether that holder still runs. A process id alone
// cannot say: after a container restart the sandbox is pid 1 again and its old lock names pid 1,
// and a pid is reused by another process once its holder is gone. So a lock also holds a token
// (random, one per copy of this module: this process's locks carry it) and, where /proc exists
// (Linux), the boot id and the holder's start time (field 22 of /proc/<pid>/stat): a live process
// with the lock's pid but another start time, or a lock from another boot, is a reused pid.
// Without /proc, the pid alone decides, as before (a lock with this process's pid is then refused).
import { closeSync, constants, openSync, readSync } from "node:fs";

/** A lock's holder, as its file says; the fields after `pid` are absent from locks of older versions. */
export interface Holder {
  pid: number;
  /** The holding process's token (32 hex digits). */
  token?: string;
  /** The boot the holder started in (/proc/sys/kernel/random/boot_id). */
  boot?: string;
  /** The holder's start time, in clock ticks since that boot (/proc/<pid>/stat, field 22). */
  start?: string;
  /** This lock file's own id (32 hex digits): tells the holder's lock from one made after it. */
  claim?: string;
}

/** What /proc says, or undefined where it cannot say (no /proc, or not readable). */
export interface ProcFacts {
  /** This boot's id. */
  boot(): string | undefined;
  /** A process's start time (field 22 of /proc/<pid>/stat). */
  start(pid: number): string | undefined;
}

/** The most a lock file holds: five short lines. */
export const MAX_LOCK_BYTES = 256;

const FIELDS: Record<string, RegExp> = {
  token: /^[0-9a-f]{32}$/,
  boot: /^[0-9a-f-]{36}$/,
  start: /^\d{1,20}$/,
  claim: /^[0-9a-f]{32}$/,
};

/** A lock file's text for a holder (its fields that are known, one a line). */
export function formatHolder(holder: Holder): string {
  let text = `${holder.pid}\n`;
  for (const key of ["token", "boot", "start", "claim"] as const)
    if (holder[key] !== undefined) text += `${key} ${holder[key]}\n`;
  return text;
}

/**
 * The holder a lock file's text names, or undefined when it names none (being written by an older
 * version, or not a lock). An older version's lock is the pid alone, its newline optional.
 */
export function parseHolder(text: string): Holder | undefined {
  const lines = text.split("\n");
  // A positive id only: kill(0) or kill(-1) would name a process group, not a process.
  const pid = /^[1-9]\d{0,9}$/.exec(lines[0] ?? "")?.[0];
  if (pid === undefined) return undefined;
  const holder: Holder = { pid: Number(pid) };
  if (lines.length <= 2 && (lines[1] ?? "") === "") return holder;
  if (lines.at(-1) !== "") return undefined;
  for (const line of lines.slice(1, -1)) {
    const [key = "", value = "", ...rest] = line.split(" ");
    const shape = Object.hasOwn(FIELDS, key) ? FIELDS[key] : undefined;
    if (!shape || rest.length > 0 || !shape.test(value) || holder[key as keyof Holder] !== undefined)
      return undefined;
    (holder as unknown as Record<string, string>)[key] = value;
  }
  return holder;
}

/** Read at most `max` bytes of a small file, never through a symlink nor waiting on a FIFO. */
function readSmall(path: string, max: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(max);
    return buffer.subarray(0, readSync(fd, buffer, 0, max, null)).toString("latin1");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** /proc as Linux has it; both answers undefined where it is missing. */
export const linuxProc: ProcFacts = {
  boot: () => {
    const text = readSmall("/proc/sys/kernel/random/boot_id", 64)?.trim();
    return text !== undefined && FIELDS.boot?.test(text) ? text : undefined;
  },
  start: (pid) => {
    // The name (field 2) is in parentheses and may hold spaces and parentheses: count after the last ")".
    const text = readSmall(`/proc/${pid}/stat`, 4096);
    const after = text?.slice(text.lastIndexOf(")") + 2).split(" ");
    const start = after?.[19];
    return start !== undefined && /^\d{1,20}$/.test(start) ? start : undefined;
  },
};

/**
 * Whether a lock's holder still holds it: "live", or "stale" (gone, or its pid now another
 * process's). `self` is this process (its token, and its boot and start where /proc says them).
 */
export function judge(
  holder: Holder,
  self: Holder,
  alive: (pid: number) => boolean,
  proc: ProcFacts,
): "live" | "stale" {
  const boot = proc.boot();
  if (holder.pid === self.pid) {
    if (holder.token !== undefined && holder.token === self.token) return "live";
    // Without /proc, as before: refused. With it, this very process (another copy of this module, a
    // worker thread's) has the same start; an earlier process that had this pid has not.
    if (boot === undefined || self.start === undefined) return "live";
    return holder.boot === boot && holder.start === self.start ? "live" : "stale";
  }
  if (!alive(holder.pid)) return "stale";
  if (boot === undefined || holder.boot === undefined || holder.start === undefined) return "live";
  // Made during another boot: whatever has that pid now is another process.
  if (holder.boot !== boot) return "stale";
  const start = proc.start(holder.pid);
  // Unreadable (another user's, /proc mounted hidepid): alive, as kill(pid, 0) said.
  return start === undefined || start === holder.start ? "live" : "stale";
}
