// The service's own answers to requests it refuses: missing credentials, browser scripts,
// unknown records, invalid bodies and bad uploads, each in the operation's error shape.
import { formParts, multipartBoundary } from "../contract/multipart.js";
import type { SchemaCompiler } from "../contract/schema-compiler.js";
import { decodeJsonBody, type JsonProblem, MAX_JSON_DEPTH } from "./body.js";
import { hasEssence, isJsonMediaType } from "../contract/media-type.js";
import type { FormPart } from "../contract/body.js";
import { type FileConstraints as FileLimits, type Operation, shapeOfPath } from "./operations.js";
import { type Nested, type Rejection, rejection, summarise, validationErrors } from "./error-body.js";

export interface IncomingRequest {
  /** Lower-cased header names, in a null-prototype record. */
  headers: Record<string, string | undefined>;
  /** Path parameter values, in template order. */
  params: string[];
}

export interface IncomingBody {
  /** Lower-cased header names, in a null-prototype record. */
  headers: Record<string, string | undefined>;
  body: Buffer;
}

const has = (op: Operation, status: number, code: string) => op.errors.get(status)?.includes(code) ?? false;

/** The code an operation answers a failed check with: its documented one, or the shape's general one. */
function codeFor(op: Operation, status: number, fallback: { A: string; B: string }): string {
  return op.errors.get(status)?.[0] ?? fallback[op.shape];
}

/** What the service refuses before it reads a body: credentials, browser scripts, unknown records. */
export function checkHeaders(op: Operation, req: IncomingRequest): Rejection | undefined {
  const missing = op.securityHeaders.filter((h) => !req.headers[h.toLowerCase()]);
  if (missing.length > 0) {
    const code = codeFor(op, 401, { A: "AUTHENTICATION", B: "AUTH_FAILED" });
    return rejection(op.shape, 401, code, `Authentication failed: missing ${missing.join(", ")}.`, {});
  }
  if (credentialsAtRisk(req.headers) && has(op, 400, "CRED_AT_RISK")) {
    const message = "Key and secret were used from a browser script; rotate the API keys.";
    return rejection(op.shape, 400, "CRED_AT_RISK", message, {});
  }
  const badParam = op.params.findIndex((p, i) => p.integer && !isIntegerSegment(req.params[i] ?? ""));
  if (badParam >= 0) {
    const code = codeFor(op, 404, { A: "NOT_FOUND", B: "NOT_FOUND" });
    return rejection(op.shape, 404, code, `No record with this ${op.params[badParam]?.name}.`, {});
  }
  return undefined;
}

/**
 * Whether a request is a browser script's (an `Origin` or `X-Requested-With` header) that used the key
 * and the secret together: v2 sends the secret itself, v4 a signature only the secret can make. The
 * document: "Key and secret used together in a browser script request" → 400 CRED_AT_RISK.
 */
export function credentialsAtRisk(headers: Record<string, string | undefined>): boolean {
  const fromBrowser = headers.origin !== undefined || headers["x-requested-with"] !== undefined;
  return fromBrowser && (Boolean(headers["svc-secret"]) || Boolean(headers["svc-signature"]));
}

/**
 * The refusal of a request no operation answers: 405 with an `Allow` header when its path has
 * operations under other methods (in their shape), else 404 in the shape of the path's product.
 */
export function unrouted(
  others: Operation[],
  method: string,
  pathname: string,
): { rejection: Rejection; headers: Record<string, string> } {
  const [first] = others;
  if (!first)
    return {
      rejection: rejection(shapeOfPath(pathname), 404, "NOT_FOUND", "No operation answers this path.", {}),
      headers: {},
    };
  const allow = [...new Set(others.map((o) => o.method))].join(", ");
  const message = `${method} is not allowed on this path; use ${allow}.`;
  return { rejection: rejection(first.shape, 405, "METHOD_NOT_ALLOWED", message, {}), headers: { allow } };
}

/** A JSON body's value, or the sentence saying what is wrong with it (never quoting it). */
export type JsonBody = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Read a JSON request body as both servers do: a JSON Content-Type (`application/json`, `…+json`,
 * UTF-8), then nesting and value count, fatal UTF-8 and JSON.parse (decodeJsonBody).
 */
export function readJsonBody(
  contentType: string | undefined,
  bytes: Uint8Array,
  maxDepth = MAX_JSON_DEPTH,
): JsonBody {
  if (!isJsonMediaType(contentType)) return { ok: false, message: "Content-Type must be application/json." };
  const read = decodeJsonBody(bytes, maxDepth);
  return read.ok ? read : { ok: false, message: JSON_PROBLEMS[read.problem] };
}

/**
 * Whether a path segment names a record by integer id, as the conformance checker reads an integer
 * parameter (docs/decisions/conformance.md): decimal digits without a leading zero, exponent or
 * fraction, within the safe integer range; the ids' `minimum: 1` leaves the positive ones. So `1e3`,
 * `01`, `0` and `9007199254740993` get the 404 the checker's refusal stands for.
 */
export const isIntegerSegment = (segment: string): boolean =>
  /^[1-9][0-9]*$/.test(segment) && Number.isSafeInteger(Number(segment));

/** The outcome of a body check: the rejection of a refused body, or the parsed value of an accepted JSON one. */
export interface BodyCheck {
  rejection?: Rejection;
  /** The JSON value of an accepted, non-empty JSON body; undefined for any other body. */
  value?: unknown;
}

/** What the service refuses in a body: invalid JSON, a schema violation, a bad upload. */
export function checkBody(op: Operation, req: IncomingBody, compiler: SchemaCompiler): BodyCheck {
  if (!op.body) return {};
  if (op.body.mediaType === "multipart/form-data") return { rejection: checkUpload(op, req) };
  return checkJson(op, req, compiler);
}

const MIB = 1024 * 1024;

/** The refusal of a file at or over the limit: "The file must be smaller than 10 MB." for 10485760 bytes. */
function fileTooBig(maxBytesExclusive: number): string {
  const mb = maxBytesExclusive / MIB;
  return `The file must be smaller than ${Number.isInteger(mb) ? `${mb} MB` : `${maxBytesExclusive} bytes`}.`;
}

/** A body larger than the mock reads: a file too big on the upload, an invalid request elsewhere. */
export function tooLarge(op: Operation): Rejection {
  if (op.body?.mediaType === "multipart/form-data" && has(op, 400, "FILE_SIZE_TOO_BIG")) {
    // The service's 10 MB when the contract states no limit.
    const message = fileTooBig(op.body.file?.maxBytesExclusive ?? 10 * MIB);
    return rejection(op.shape, 400, "FILE_SIZE_TOO_BIG", message, {});
  }
  return invalid(op, "The request body is too large.", {});
}

/** A refused body: 422 where the operation documents it (else 400), in the operation's shape. */
function invalid(
  op: Operation,
  message: string,
  request: Record<string, unknown>,
  details?: Nested,
): Rejection {
  const status = op.errors.has(422) || !op.errors.has(400) ? 422 : 400;
  const code = codeFor(op, status, { A: "VALIDATION", B: "VALIDATION_FAILED" });
  return rejection(
    op.shape,
    status,
    code,
    message,
    request,
    op.shape === "A" ? (details ?? { base: [message] }) : undefined,
  );
}

function checkJson(op: Operation, req: IncomingBody, compiler: SchemaCompiler): BodyCheck {
  const spec = op.body;
  if (!spec) return {};
  const empty = req.body.length === 0;
  if (empty && !spec.required) return {};
  if (empty) return { rejection: invalid(op, "The request body can't be blank.", {}) };
  const read = readJsonBody(req.headers["content-type"], req.body);
  if (!read.ok) return { rejection: invalid(op, read.message, {}) };
  const value = read.value;
  const validate = compiler.validator(spec.schemaPointer);
  if (validate(value)) return { value };
  const errors = validate.errors ?? [];
  const metadata = ownMember(value, "metadata");
  return {
    rejection: invalid(
      op,
      summarise(errors),
      { reference: ownMember(metadata, "reference"), external_id: ownMember(metadata, "external_id") },
      validationErrors(errors),
    ),
  };
}

const JSON_PROBLEMS: Record<JsonProblem, string> = {
  utf8: "The request body is not valid UTF-8.",
  json: "The request body is not valid JSON.",
  depth: "The request body is nested too deeply.",
  values: "The request body holds too many JSON values.",
};

/** A member of a parsed JSON object, read only if it is the object's own (never an inherited one). */
const ownMember = (value: unknown, name: string): unknown =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;

/** A generic type says nothing about a file's format. */
const isGeneric = (type: string | undefined): boolean =>
  type === undefined || type === "application/octet-stream";

/**
 * The format problem of an upload's file, if any. A file name is not required (the document asks
 * only for a part named `file`): without one, the part's Content-Type must name an accepted format.
 */
function formatProblem(file: FormPart, limits: FileLimits): string | undefined {
  const accepted = `The file must be one of: ${limits.extensions.join(", ")}.`;
  if (file.fileName === undefined) {
    if (file.contentType !== undefined && limits.mediaTypes.includes(file.contentType)) return undefined;
    return (
      "The part 'file' has no file name, and its Content-Type names no accepted format: " +
      `give it a file name or one of ${limits.mediaTypes.join(", ")}. ${accepted}`
    );
  }
  const extension = file.fileName.split(".").pop()?.toLowerCase() ?? "";
  // A generic type says nothing about the file; the extension decides then.
  const typeOk = isGeneric(file.contentType) || limits.mediaTypes.includes(file.contentType ?? "");
  return limits.extensions.includes(extension) && typeOk ? undefined : accepted;
}

function checkUpload(op: Operation, req: IncomingBody): Rejection | undefined {
  const limits = op.body?.file;
  const type = req.headers["content-type"] ?? "";
  const parts = hasEssence(type, "multipart/form-data")
    ? formParts({ kind: "bytes", bytes: req.body }, multipartBoundary(type))
    : undefined;
  const files = (parts ?? []).filter((p) => p.name === "file");
  const reject = (code: string, message: string) =>
    rejection(
      op.shape,
      400,
      has(op, 400, code) ? code : codeFor(op, 400, { A: "VALIDATION", B: "NO_FILE_UPLOADED" }),
      message,
      {},
    );
  if (parts === undefined)
    return reject("NO_FILE_UPLOADED", "Content-Type must be multipart/form-data with a file part.");
  if (files.length === 0)
    return reject("NO_FILE_UPLOADED", "No file was uploaded: the part 'file' is missing.");
  if (files.length > 1) return reject("NO_FILE_UPLOADED", "One file per request.");
  const file = files[0];
  if (!file || !limits) return undefined;
  if (file.size >= limits.maxBytesExclusive)
    return reject("FILE_SIZE_TOO_BIG", fileTooBig(limits.maxBytesExclusive));
  const problem = formatProblem(file, limits);
  return problem === undefined ? undefined : reject("NO_FILE_UPLOADED", problem);
}
