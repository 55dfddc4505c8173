// The checks of an exchange's response: its status documented, an error's shape, its headers, and
// its body (JSON against its schema and members it does not describe, binary by its signature).
import type { HeaderModel, OperationModel, ResponseModel } from "./contract-model.js";
import { isJsonEssence } from "../../src/contract/media-type.js";
import {
  type Exchange,
  type HeaderMap,
  isEmptyBody,
  NOT_JSON,
  parseJson,
  type RecordedResponse,
} from "../traffic/exchange.js";
import type { FindingList } from "../findings/findings.js";
import { mediaTypeEssence, pointerToken } from "../findings/redact.js";
import { reportSchemaErrors } from "./schema-errors.js";
import { type CheckContext, checkBinary, list, pickMedia } from "./check-context.js";
import { checkJsonBody } from "./check-json-body.js";

/** The response the contract documents for a status (its own, its range's, or the default). */
function responseModel(op: OperationModel, status: number): ResponseModel | undefined {
  if (op.byStatus.has(status)) return op.byStatus.get(status);
  const model =
    op.responses.get(String(status)) ??
    op.responses.get(`${Math.floor(status / 100)}XX`) ??
    op.responses.get("DEFAULT");
  // Statuses are a bounded set (0-999), so the memo stays small.
  op.byStatus.set(status, model);
  return model;
}

/** The verdict of the error shape on a 4xx/5xx JSON body, and the body's value once parsed. */
interface ErrorShapeCheck {
  shapeBroken: boolean;
  /** The body's JSON value when parsed here (the body check then reuses it). */
  parsed: { value: unknown } | undefined;
}

/** An error response's JSON body against the operation's error shape. */
function checkErrorShape(
  ctx: CheckContext,
  op: OperationModel,
  response: RecordedResponse,
  findings: FindingList,
): ErrorShapeCheck {
  const { status, headers, body } = response;
  const essence = mediaTypeEssence(headers["content-type"]);
  if (!(status >= 400 && op.errorShape && body && !isEmptyBody(body) && essence && isJsonEssence(essence)))
    return { shapeBroken: false, parsed: undefined };
  const value = parseJson(body);
  if (value === NOT_JSON) return { shapeBroken: false, parsed: { value } };
  const validate = ctx.model.validatorOf(op.errorShape);
  if (validate(value)) return { shapeBroken: false, parsed: { value } };
  reportSchemaErrors(
    findings,
    "response.body",
    "error_shape",
    validate.errors,
    value,
    "",
    `not a ${op.errorShape.name}: `,
  );
  return { shapeBroken: true, parsed: { value } };
}

/** The response: recorded, of a documented status, of the error shape, with its headers and body. */
export function checkResponse(
  ctx: CheckContext,
  op: OperationModel,
  exchange: Exchange,
  findings: FindingList,
): void {
  const response = exchange.response;
  if (!response?.status) {
    findings.fail(
      "response.status",
      "status_code_documented",
      "",
      "no response was recorded for this request",
    );
    return;
  }
  const { status, headers } = response;
  const model = responseModel(op, status);
  if (!model) {
    findings.fail(
      "response.status",
      "status_code_documented",
      "",
      `status ${status} is not documented for ${op.operationId} (documented: ${list([...op.responses.values()].map((r) => r.key))})`,
    );
  }
  // Parsed once, here or by the body check, whichever needs it first.
  const { shapeBroken, parsed } = checkErrorShape(ctx, op, response, findings);
  if (!model) return;
  const unknown = exchange.notRecorded;
  ctx.coverage?.status(model);
  if (!unknown?.responseHeaders) checkResponseHeaders(ctx, model, headers, findings);
  if (!unknown?.responseBody)
    checkResponseBody(ctx, model, response, shapeBroken, parsed, findings, !unknown?.responseHeaders);
}

/** Each header the response documents: present when required, and valid against its schema. */
function checkResponseHeaders(
  ctx: CheckContext,
  model: ResponseModel,
  headers: HeaderMap,
  findings: FindingList,
): void {
  for (const header of model.headers) {
    const value = headers[header.lowerName];
    if (value === undefined) {
      if (header.required)
        findings.fail(
          "response.header",
          "response_headers",
          `/${pointerToken(header.name)}`,
          `the required ${header.name} header is missing`,
        );
      continue;
    }
    ctx.coverage?.responseHeader(header, value);
    if (!header.schemaPointer) continue;
    const validate = ctx.model.validatorOf(header as HeaderModel & { schemaPointer: string });
    if (!validate(value))
      reportSchemaErrors(
        findings,
        "response.header",
        "response_headers",
        validate.errors,
        value,
        `/${pointerToken(header.name)}`,
      );
  }
}

/** `parsed`: the body's JSON value when checkResponse has parsed it already. */
function checkResponseBody(
  ctx: CheckContext,
  model: ResponseModel,
  response: RecordedResponse,
  shapeBroken: boolean,
  parsed: { value: unknown } | undefined,
  findings: FindingList,
  headersRecorded: boolean,
): void {
  const { body, headers } = response;
  const empty = isEmptyBody(body);
  if (model.media.length === 0) {
    if (!empty)
      findings.fail(
        "response.body",
        "response_content_type",
        "",
        `the contract describes no body for status ${model.key}, but one was sent`,
      );
    return;
  }
  if (empty || !body) {
    if (response.bodyNotRecorded === true)
      findings.warn(
        "response.body",
        "response_body_schema",
        "",
        "the recorder did not keep the body; it was not checked",
      );
    else
      findings.fail(
        "response.body",
        "response_body_schema",
        "",
        `the body is empty; the contract gives ${list(model.media.map((m) => m.mediaType))}`,
      );
    return;
  }
  const media = pickMedia(
    ctx,
    model.media,
    headers["content-type"],
    "response.header",
    "response_content_type",
    findings,
    headersRecorded,
  );
  if (!media) return;
  if (isJsonEssence(media.mediaType)) {
    // A body of the wrong error shape has been reported by error_shape; the narrowed schema would repeat it.
    const value = checkJsonBody(ctx, "response", media, body, findings, parsed, !shapeBroken);
    if (value !== NOT_JSON && !shapeBroken && media.schema)
      ctx.described.warnUndescribed(media.schema, value, findings, "response.body");
    return;
  }
  checkBinary(ctx, media, body, "response.body", "response_body_schema", findings);
}
