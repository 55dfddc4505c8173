// What the probe's listener counts and refuses before it keeps a delivery: the credentials it
// registered with the sandbox, and the bytes of every delivery read or kept under one budget, so
// that what it holds is what it counted (the parsed value of a body is never kept: a list of empty
// objects costs some 30 times its bytes once parsed).
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { EntryResult, Finding } from "../findings/findings.js";

/** Why a delivery was refused, counted for the run's notes. */
export interface Refusals {
  /** Deliveries without the credentials the listener registered (answered 401). */
  unauthorized: number;
  /** Deliveries refused because the budget of bytes (or of deliveries) kept was spent (answered 503). */
  overBudget: number;
}

/** The bytes the listener holds, read and kept, within one total. */
export class EventBudget {
  private held = 0;

  constructor(readonly totalBytes: number) {}

  /** The bytes held now: bodies being read, and the deliveries kept. */
  get heldBytes(): number {
    return this.held;
  }

  /** Count `n` more bytes; false (nothing counted) when they would pass the total. */
  take(n: number): boolean {
    if (this.held + n > this.totalBytes) return false;
    this.held += n;
    return true;
  }

  /** Give back `n` bytes counted before. */
  release(n: number): void {
    this.held -= n;
  }
}

/** A body read within the budget and a size limit, or why it was not. */
export type ReadBody = { ok: true; bytes: Buffer } | { ok: false; why: "too-large" | "budget" };

/**
 * Every byte of a request, each chunk counted against `budget` as it arrives and the whole under
 * `max`. On success the body's bytes stay counted (the caller keeps or releases them); on failure
 * nothing read stays counted. A body the budget cannot hold is still read to its end (up to `max`)
 * and dropped as it comes, so that the refusal is an answer the sender reads, not a reset.
 */
export async function readCounted(req: IncomingMessage, max: number, budget: EventBudget): Promise<ReadBody> {
  let chunks: Buffer[] | undefined = [];
  let size = 0;
  let counted = 0;
  const drop = () => {
    budget.release(counted);
    counted = 0;
    chunks = undefined;
  };
  try {
    for await (const chunk of req) {
      const piece = chunk as Buffer;
      size += piece.length;
      if (size > max) {
        drop();
        return { ok: false, why: "too-large" };
      }
      if (!chunks) continue;
      if (budget.take(piece.length)) {
        counted += piece.length;
        chunks.push(piece);
      } else drop();
    }
  } catch (error) {
    drop();
    throw error;
  }
  if (!chunks) return { ok: false, why: "budget" };
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] as Buffer };
  // Joining copies: the copy is counted while both exist, then the pieces are given back.
  if (!budget.take(size)) {
    drop();
    return { ok: false, why: "budget" };
  }
  const bytes = Buffer.concat(chunks, size);
  budget.release(size);
  return { ok: true, bytes };
}

/** What a kept finding costs beside its text: the object and its four members, as V8 lays them out. */
const FINDING_OVERHEAD = 96;

/** The bytes a verdict kept with a delivery holds: its findings' text (two bytes a code unit) and objects. */
export function verdictBytes(verdict: EntryResult): number {
  const cost = (f: Finding) =>
    FINDING_OVERHEAD + 2 * (f.message.length + f.pointer.length + f.check.length + f.in.length);
  let bytes = FINDING_OVERHEAD + 2 * ((verdict.operationId ?? "").length + verdict.path.length);
  for (const f of verdict.violations) bytes += cost(f);
  for (const f of verdict.warnings) bytes += cost(f);
  return bytes;
}

/** A check of the bearer token the listener registered, in constant time (digests of equal length). */
export function bearerCheck(token: string): (req: IncomingMessage) => boolean {
  const want = createHash("sha256").update(token).digest();
  return (req) => {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
    const got = createHash("sha256")
      .update(m?.[1] ?? "")
      .digest();
    return m !== null && timingSafeEqual(got, want);
  };
}
