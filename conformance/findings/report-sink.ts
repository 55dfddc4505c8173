import { createReadStream, createWriteStream, rmSync, type WriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";

/** Write a chunk, waiting when the stream asks for a pause, so memory stays flat on long runs. */
export async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", resolve));
}

/** Spool directories not yet removed: removed at exit however the process ends (e.g. EPIPE on stdout). */
const live = new Set<string>();
process.once("exit", () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
});

/**
 * A report whose head (totals) is only known at the end while its body is long: the body is spooled to
 * a temporary file, then written after the head. Memory stays flat whatever the number of entries.
 */
export class Spool {
  /** The spool file's first error, kept for drainInto: an 'error' event without a listener ends the process. */
  private failure: Error | undefined;

  private constructor(
    private readonly dir: string,
    private readonly file: WriteStream,
  ) {
    file.on("error", (error) => {
      this.failure ??= error;
    });
  }

  /** A new spool in a private temporary directory. */
  static async create(): Promise<Spool> {
    const dir = await mkdtemp(join(tmpdir(), "idv-conformance-"));
    live.add(dir);
    return new Spool(dir, createWriteStream(join(dir, "body")));
  }

  /** Append to the body. */
  append(chunk: string): Promise<void> | undefined {
    // Only await when the stream is full: most writes return synchronously.
    return this.file.write(chunk)
      ? undefined
      : new Promise<void>((resolve) => this.file.once("drain", resolve));
  }

  /** Write head, body and tail to `out`, then remove the spool. */
  async drainInto(out: Writable, head: string, tail: string): Promise<void> {
    await this.close();
    try {
      if (this.failure) throw this.failure;
      await write(out, head);
      await pipeline(createReadStream(join(this.dir, "body")), out, { end: false });
      await write(out, tail);
    } finally {
      await rm(this.dir, { recursive: true, force: true });
      live.delete(this.dir);
    }
  }

  /**
   * Remove the spool without writing it (on failure). The file is ended, not destroyed, and removed
   * only once closed: destroying it under pending writes made them fail after the run had ended.
   */
  async discard(): Promise<void> {
    await this.close();
    await rm(this.dir, { recursive: true, force: true });
    live.delete(this.dir);
  }

  /** End the spool file and wait until it is closed, whatever its state. */
  private close(): Promise<void> {
    if (this.file.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.file.once("close", () => resolve());
      if (!this.file.writableEnded) this.file.end();
    });
  }
}
