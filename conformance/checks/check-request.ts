// The checks of an exchange's request: the credentials its operation's security requires, its
// parameters against their schemas, and its body (JSON against its schema, multipart in check-form.ts,
// binary by its signature).
import type { Coercion, OperationModel, ParameterModel } from "./contract-model.js";
import { isJsonEssence } from "../../src/contract/media-type.js";
import { type Exchange, type HeaderMap, isEmptyBody, type RecordedBody } from "../traffic/exchange.js";
import type { FindingList } from "../findings/findings.js";
import { multipartBoundary } from "../../src/contract/multipart.js";
import { pointerToken } from "../findings/redact.js";
import { reportSchemaErrors } from "./schema-errors.js";
import { type CheckContext, checkBinary, pickMedia } from "./check-context.js";
import { checkForm } from "./check-form.js";
import { checkJsonBody } from "./check-json-body.js";

/**
 * An integer as a path, query or header parameter writes it: decimal digits, an optional minus, no
 * leading zero, no exponent, no fraction, within the safe integer range (docs/decisions/conformance.md).
 * `1e3`, `01`, `1.0` and `9007199254740993` stay text, so an integer schema refuses them.
 */
const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
/** A number as JSON writes one. */
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** Turn a recorded parameter string into the JSON type its schema expects, so the schema can judge it. */
function coerce(value: string, as: Coercion): unknown {
  if (as === "integer" && INTEGER_TEXT.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  }
  if (as === "number" && NUMBER_TEXT.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : value;
  }
  if (as === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** Where a parameter's findings point: `/query/name`. */
const parameterPointer = (parameter: ParameterModel): string =>
  `/${parameter.in}/${pointerToken(parameter.name)}`;

/** The headers of one of the operation's security alternatives must all be present. */
export function checkSecurity(
  ctx: CheckContext,
  op: OperationModel,
  headers: HeaderMap,
  findings: FindingList,
): void {
  if (op.security.length === 0) return;
  // The common case, every header of an alternative present, allocates nothing.
  for (let i = 0; i < op.securityLower.length; i++) {
    let present = true;
    for (const name of op.securityLower[i] as string[]) if (!headers[name]) present = false;
    if (!present) continue;
    ctx.coverage?.security(op, i);
    return;
  }
  let fewestMissing: string[] | undefined;
  for (const alternative of op.security) {
    const missing = alternative.filter((name) => !headers[name.toLowerCase()]);
    if (!fewestMissing || missing.length < fewestMissing.length) fewestMissing = missing;
  }
  for (const name of fewestMissing ?? []) {
    findings.fail(
      "request.header",
      "auth_headers_present",
      `/${pointerToken(name)}`,
      `the ${name} header the operation's security requires is missing or empty`,
    );
  }
}

/**
 * A parameter's recorded text: undefined when absent, null when it is not checked (a header a log did
 * not record, a cookie) or its path segment is not validly percent-encoded (a violation recorded here).
 */
function recordedParameter(
  parameter: ParameterModel,
  pathParams: Record<string, string>,
  exchange: Exchange,
  findings: FindingList,
): string | undefined | null {
  if (parameter.in === "path") {
    const value = pathParams[parameter.name];
    try {
      // Most segments hold no escape: nothing to decode.
      return value === undefined || !value.includes("%") ? value : decodeURIComponent(value);
    } catch {
      findings.fail(
        "request.parameter",
        "request_parameters",
        `/path/${pointerToken(parameter.name)}`,
        "is not validly percent-encoded",
      );
      return null;
    }
  }
  if (parameter.in === "query") return exchange.request.query[parameter.name]?.[0];
  if (parameter.in === "header" && !exchange.notRecorded?.requestHeaders)
    return exchange.request.headers[parameter.headerName];
  return null;
}

/** Each parameter of the operation: present when required, and valid against its schema. */
export function checkParameters(
  ctx: CheckContext,
  op: OperationModel,
  pathParams: Record<string, string>,
  exchange: Exchange,
  findings: FindingList,
): void {
  for (const parameter of op.parameters) {
    const raw = recordedParameter(parameter, pathParams, exchange, findings);
    if (raw === null) continue;
    if (raw === undefined || raw === "") {
      if (parameter.required) {
        findings.fail(
          "request.parameter",
          "request_parameters",
          parameterPointer(parameter),
          `required ${parameter.in} parameter is missing`,
        );
      }
      continue;
    }
    if (!parameter.schemaPointer) {
      ctx.coverage?.parameter(op, parameter, undefined);
      continue;
    }
    const value =
      parameter.in === "query" && parameter.array
        ? (exchange.request.query[parameter.name] ?? []).map((v) => coerce(v, parameter.itemCoercion))
        : coerce(raw, parameter.coercion);
    ctx.coverage?.parameter(op, parameter, value);
    const validate = ctx.model.validatorOf(parameter as ParameterModel & { schemaPointer: string });
    if (!validate(value))
      reportSchemaErrors(
        findings,
        "request.parameter",
        "request_parameters",
        validate.errors,
        value,
        parameterPointer(parameter),
      );
  }
}

/** The request body: present when required, of a documented media type, and valid as that type. */
export function checkRequestBody(
  ctx: CheckContext,
  op: OperationModel,
  headers: HeaderMap,
  body: RecordedBody | undefined,
  findings: FindingList,
  notRecorded?: boolean,
  headersRecorded = true,
): void {
  const spec = op.requestBody;
  const empty = isEmptyBody(body);
  if (empty && notRecorded && spec) {
    findings.warn(
      "request.body",
      "request_body_schema",
      "",
      "the recorder did not keep the body; it was not checked",
    );
    return;
  }
  if (!spec) {
    if (!empty)
      findings.warn(
        "request.body",
        "request_content_type",
        "",
        "the request has a body, but the operation describes none",
      );
    return;
  }
  if (empty || !body) {
    if (spec.required)
      findings.fail(
        "request.body",
        "request_body_schema",
        "",
        "the request body is required, but none was sent",
      );
    return;
  }
  const contentType = headers["content-type"];
  const media = pickMedia(
    ctx,
    spec.media,
    contentType,
    "request.header",
    "request_content_type",
    findings,
    headersRecorded,
  );
  if (!media) return;
  if (isJsonEssence(media.mediaType)) {
    checkJsonBody(ctx, "request", media, body, findings);
    return;
  }
  if (media.mediaType === "multipart/form-data") {
    checkForm(ctx, media, body, multipartBoundary(contentType), findings);
    return;
  }
  checkBinary(ctx, media, body, "request.body", "request_body_schema", findings);
}
