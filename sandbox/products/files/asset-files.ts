// The bytes of files uploaded to EDD cases, so that an asset's download_url answers with them. Held in
// memory within a byte budget, oldest first out; never written to the --state file (an upload is
// a developer's test file, and the state file stays small).
import type { ByteBudget } from "../../state/byte-budget.js";

/** The bytes kept across all uploads; past it the oldest files are dropped. */
export const MAX_ASSET_FILE_BYTES = 32 * 1024 * 1024;

export interface AssetFile {
  bytes: Buffer;
  /** The part's media type as uploaded; application/octet-stream when it gave none. */
  contentType: string;
  fileName: string;
}

/** Uploaded files by asset id, in upload order, within MAX_ASSET_FILE_BYTES and the sandbox's byte budget. */
export class AssetFiles {
  // A Map keeps insertion order: its first key is the oldest upload.
  private readonly files = new Map<number, AssetFile>();
  /** Each file's place among everything the sandbox keeps. */
  private readonly seqs = new Map<number, number>();
  private bytes = 0;

  constructor(
    private readonly budget = MAX_ASSET_FILE_BYTES,
    /** The byte budget the files share with the rest of the sandbox (none by default). */
    private readonly shared?: ByteBudget,
  ) {
    shared?.register({
      oldestSeq: () => {
        const oldest = this.files.keys().next().value;
        return oldest === undefined ? undefined : this.seqs.get(oldest);
      },
      forgetOldest: () => {
        const oldest = this.files.keys().next().value;
        if (oldest !== undefined) this.drop(oldest);
      },
    });
  }

  /** Keep a copy of an upload's bytes (the request's buffer is not held); false when it alone exceeds the budget. */
  put(assetId: number, bytes: Uint8Array, contentType: string | undefined, fileName: string): boolean {
    if (bytes.byteLength > this.budget) return false;
    this.files.set(assetId, {
      bytes: Buffer.from(bytes),
      contentType: contentType ?? "application/octet-stream",
      fileName,
    });
    this.bytes += bytes.byteLength;
    if (this.shared) {
      this.seqs.set(assetId, this.shared.next());
      this.shared.charge(bytes.byteLength);
    }
    while (this.bytes > this.budget) {
      const oldest = this.files.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    this.shared?.enforce();
    return true;
  }

  get(assetId: number): AssetFile | undefined {
    return this.files.get(assetId);
  }

  /** Forget an upload (its asset left the case). */
  drop(assetId: number): void {
    const file = this.files.get(assetId);
    if (!file) return;
    this.bytes -= file.bytes.byteLength;
    this.shared?.charge(-file.bytes.byteLength);
    this.seqs.delete(assetId);
    this.files.delete(assetId);
  }

  /** Forget every upload (the sandbox was reset). */
  clear(): void {
    for (const assetId of [...this.files.keys()]) this.drop(assetId);
  }

  /** Bytes held now. */
  get size(): number {
    return this.bytes;
  }
}

/** The characters RFC 8187 lets stand for themselves in an extended parameter value. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+.^_`|~-]$/;

/**
 * A Content-Disposition for a file name from an upload: a plain ASCII fallback and the exact name
 * (RFC 6266, RFC 8187), so that no quote, control or non-ASCII character reaches the header raw.
 */
export function attachment(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  let exact = "";
  // Byte by byte: Buffer.from never throws (a lone surrogate becomes U+FFFD), unlike encodeURIComponent.
  for (const byte of Buffer.from(fileName, "utf8"))
    exact += ATTR_CHAR.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
