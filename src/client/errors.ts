import { errorCodes } from "../../generated/operations.js";
import type { components } from "../../generated/types.js";

/** Shape A: the error body of manual verification (v2). */
export type ManualVerificationError = components["schemas"]["ManualVerificationError"];
/** Shape B: the error body of biometric verification and every v4 operation. */
export type ServiceError = components["schemas"]["ServiceError"];

/** An error answer classified by body shape, with the HTTP status; `code` is error_type (A) or error_code (B). */
export type ApiError<E = ManualVerificationError | ServiceError> =
  | (E extends { error_type: infer C }
      ? { shape: "A"; status: number; code: C; message: string; body: E }
      : E extends { error_code: infer C }
        ? { shape: "B"; status: number; code: C; message: string; body: E }
        : never)
  | { shape: "unknown"; status: number; code: undefined; message: string; body: unknown };

/** Classify an error body and status into shape A, shape B or unknown. */
export function classifyError<E = ManualVerificationError | ServiceError>(
  status: number,
  body: unknown,
): ApiError<E> {
  const fields = body as Record<string, unknown> | null | undefined;
  if (typeof fields?.message === "string") {
    const { error_type, error_code, message } = fields;
    const shape = typeof error_type === "string" ? "A" : typeof error_code === "string" ? "B" : "";
    if (shape) {
      return { shape, status, code: shape === "A" ? error_type : error_code, message, body } as ApiError<E>;
    }
  }
  return { shape: "unknown", status, code: undefined, message: `HTTP ${status}`, body };
}

/** The classified error of an openapi-fetch result, or undefined when the call succeeded. */
export function apiError<E>(result: { error?: E; response: Response }): ApiError<E> | undefined {
  return result.response.ok ? undefined : classifyError<E>(result.response.status, result.error);
}

/** The call each answer of the client belongs to, as `unwrap` names it: never a path the service chose. */
export const callOf = new WeakMap<Response, string>();

// The codes the contract names: only these are quoted, as no request value can be one of them.
const KNOWN_CODES = new Set(errorCodes);

/** What follows the status in a message: the contract's code, or the client's own message. */
function detail(error: ApiError<unknown>): string {
  if (error.shape === "unknown") return `: ${error.message}`;
  return typeof error.code === "string" && KNOWN_CODES.has(error.code) ? ` ${error.code}` : "";
}

/** Thrown by the helpers (and unwrap) when the service answers with an error. */
export class ApiRequestError<E = ManualVerificationError | ServiceError> extends Error {
  override name = "ApiRequestError";
  readonly status: number;
  constructor(
    readonly error: ApiError<E>,
    where: string,
  ) {
    // The service's message, and a code the contract does not name, may quote what the request sent
    // (personal data, such as a document number as a code): they stay in `error`.
    super(`${where} failed with HTTP ${error.status}${detail(error as ApiError<unknown>)}`);
    this.status = error.status;
  }
}

/**
 * The data of an openapi-fetch result, or an ApiRequestError naming `where` (default: the client's call,
 * such as "GET /api/v4/outsource_cases/{id}", else the URL's path).
 */
export function unwrap<D, E>(result: { data?: D; error?: E; response: Response }, where?: string): D {
  const error = apiError(result);
  const { response } = result;
  // Not the URL of the client's answer: after a redirect, its path is the service's Location.
  const url = callOf.get(response) ?? (response.url && new URL(response.url).pathname);
  if (error) throw new ApiRequestError(error, where ?? (url || "request"));
  return result.data as D;
}
