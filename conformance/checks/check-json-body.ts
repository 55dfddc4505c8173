// The check of a JSON body, the same on both sides of an exchange: parsed, reported when it is not
// JSON, recorded for coverage, and validated against its media type's schema.
import type { MediaModel } from "./contract-model.js";
import { NOT_JSON, parseJson, type RecordedBody } from "../traffic/exchange.js";
import type { FindingList } from "../findings/findings.js";
import { reportSchemaErrors } from "./schema-errors.js";
import type { CheckContext } from "./check-context.js";

/** Where each side's body findings point, and the check they belong to. */
const SIDES = {
  request: { where: "request.body", check: "request_body_schema" },
  response: { where: "response.body", check: "response_body_schema" },
} as const;

/**
 * A JSON body against its media type's schema; returns its value, or NOT_JSON once reported.
 * `parsed`: the value when parsed already; `schemaChecked` false records coverage but skips the schema.
 */
export function checkJsonBody(
  ctx: CheckContext,
  side: "request" | "response",
  media: MediaModel,
  body: RecordedBody,
  findings: FindingList,
  parsed?: { value: unknown },
  schemaChecked = true,
): unknown {
  const { where, check } = SIDES[side];
  const value = parsed ? parsed.value : parseJson(body);
  if (value === NOT_JSON) {
    findings.fail(where, check, "", `the body is not valid JSON, although sent as ${media.mediaType}`);
    return NOT_JSON;
  }
  if (side === "request") ctx.coverage?.requestBody(media, value);
  else ctx.coverage?.responseBody(media, value);
  if (!schemaChecked) return value;
  const validate = ctx.model.validatorOf(media);
  if (!validate(value)) reportSchemaErrors(findings, where, check, validate.errors, value);
  return value;
}
