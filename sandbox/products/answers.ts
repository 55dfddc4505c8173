// The answers every product's handlers share: the operation's own error body, its 404, a file.
import type { Answer } from "../../src/server/answer.js";
import { rejection } from "../../src/server/error-body.js";
import type { Operation } from "../../src/server/operations.js";

/** The operation's error answer, in its shape (the v2 or the v4 error body). */
export const error = (op: Operation, status: number, code: string, message: string): Answer => {
  const r = rejection(op.shape, status, code, message, {});
  return { status: r.status, json: r.body };
};

/** The operation's 404 for a record of `what` that no id names. */
export const notFound = (op: Operation, what: string): Answer =>
  error(op, 404, "NOT_FOUND", `No ${what} has this id.`);

/** A downloaded file. */
export const file = (bytes: Buffer, name: string, type = "application/pdf"): Answer => ({
  status: 200,
  bytes,
  headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"` },
});

/** A record's integer id from the path, or undefined (the mock's checks already refused non-numbers). */
export const intId = (raw: string | undefined): number | undefined => {
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
};
