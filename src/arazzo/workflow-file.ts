// `$file('path')` in a multipart payload of a workflow step, as Redocly Respect reads it: the bytes of
// a file beside the workflow document. The path is resolved against the document's own directory and
// must stay inside it (after symlinks too): a document is input, and its path must never read
// another file of the machine. The bytes are bounded before they are read.
import { closeSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Bytes a workflow's file may hold: the contract's upload limit (10 MB). */
export const MAX_WORKFLOW_FILE_BYTES = 10 * 1024 * 1024;

/** A file a step sends: its name, its media type (by extension) and its bytes. */
export interface WorkflowFile {
  name: string;
  type: string;
  bytes: Buffer;
}

const MEDIA_TYPES: Record<string, string> = {
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".txt": "text/plain",
};

/** The path of a `$file('…')` (or `$file("…")`) value; undefined for any other value. */
export function fileReference(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^\$file\((?:'([^']*)'|"([^"]*)")\)$/.exec(value.trim());
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Whether `target` is `dir` itself or under it. */
const inside = (dir: string, target: string): boolean => {
  const rel = relative(dir, target);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
};

/**
 * The directory the package's documents are relative to: the nearest directory above this module
 * holding `documentPath` (the sources run from the repository, the package from dist/).
 */
export function documentsRoot(
  documentPath: string,
  from = fileURLToPath(import.meta.url),
): string | undefined {
  let dir = dirname(from);
  for (let up = 0; up < 6; up++) {
    try {
      realpathSync(resolve(dir, documentPath));
      return dir;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  }
  return undefined;
}

/**
 * Read the file a step's `$file(path)` names, relative to the workflow document at `documentFile`
 * (an absolute path); the reason it cannot be sent otherwise. A problem never quotes the bytes.
 */
export function readWorkflowFile(
  documentFile: string,
  path: string,
  maxBytes = MAX_WORKFLOW_FILE_BYTES,
): WorkflowFile | { problem: string } {
  if (path === "" || path.includes("\0") || isAbsolute(path))
    return { problem: "its $file() names no relative path" };
  let dir: string;
  let target: string;
  try {
    dir = realpathSync(dirname(documentFile));
    // Checked before and after symlinks are followed: `../x` and a link out of the directory alike.
    if (!inside(dir, resolve(dir, path)))
      return { problem: "its $file() names a path outside the workflow's directory" };
    target = realpathSync(resolve(dir, path));
  } catch {
    return { problem: "its $file() names a file that does not exist" };
  }
  if (!inside(dir, target)) return { problem: "its $file() names a path outside the workflow's directory" };
  let fd: number | undefined;
  try {
    fd = openSync(target, "r");
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: "its $file() names something that is not a file" };
    if (stat.size > maxBytes) return { problem: `its $file() names a file over ${maxBytes} bytes` };
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const type = MEDIA_TYPES[extname(target).toLowerCase()] ?? "application/octet-stream";
    return { name: basename(target), type, bytes: bytes.subarray(0, read) };
  } catch {
    return { problem: "its $file() names a file that cannot be read" };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
