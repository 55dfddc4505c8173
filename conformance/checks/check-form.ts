// The check of a multipart/form-data request body: its required parts, parts sent twice or not
// described, and each file part against its schema's `x-file-constraints` (size, media type, extension).
import type { MediaModel } from "./contract-model.js";
import type { FormPart, RecordedBody } from "../traffic/exchange.js";
import type { FindingList } from "../findings/findings.js";
import { formParts } from "../../src/contract/multipart.js";
import { mediaTypeEssence, pointerToken } from "../findings/redact.js";
import { type CheckContext, list, resolvedSchema } from "./check-context.js";
import type { Json } from "../../src/contract/json.js";

/** Every finding on a multipart/form-data body sent as `media`. */
export function checkForm(
  ctx: CheckContext,
  media: MediaModel,
  body: RecordedBody,
  boundary: string | undefined,
  findings: FindingList,
): void {
  const parts = formParts(body, boundary);
  if (!parts) {
    findings.fail(
      "request.body",
      "request_body_schema",
      "",
      "the body is not readable multipart/form-data (boundary missing or parts malformed)",
    );
    return;
  }
  const schema = resolvedSchema(ctx, media);
  const properties: Record<string, Json> = schema.properties ?? {};
  // Part names are input: only the schema's own members count, never what its prototype has.
  const describedPart = (name: string): Json =>
    Object.hasOwn(properties, name) ? properties[name] : undefined;
  const closed = schema.unevaluatedProperties === false || schema.additionalProperties === false;
  for (const name of schema.required ?? []) {
    if (!parts.some((p) => p.name === name)) {
      findings.fail(
        "request.body",
        "request_body_schema",
        `/${pointerToken(name)}`,
        `required part ${JSON.stringify(name)} is missing`,
      );
    }
  }
  if (ctx.coverage) {
    // Only which described parts were sent: a part's name is input, so never a plain object's key.
    const sent: Record<string, true> = Object.create(null);
    for (const part of parts) sent[part.name] = true;
    ctx.coverage.requestBody(media, sent);
  }
  const seen = new Set<string>();
  for (const part of parts) {
    // Made only for a finding: masking the name runs several patterns.
    const pointer = () => `/${pointerToken(part.name)}`;
    if (seen.has(part.name))
      findings.fail("request.body", "request_body_schema", pointer(), "the part is sent more than once");
    seen.add(part.name);
    const property = describedPart(part.name);
    if (!property) {
      if (closed)
        findings.fail(
          "request.body",
          "request_body_schema",
          pointer(),
          "part is not described by the contract",
        );
      continue;
    }
    const constraints = fileConstraints(ctx, property);
    if (constraints) checkFilePart(ctx, part, constraints, pointer, findings);
  }
}

/** A file part against the `x-file-constraints` of its schema. */
function checkFilePart(
  ctx: CheckContext,
  part: FormPart,
  constraints: Json,
  pointer: () => string,
  findings: FindingList,
): void {
  if (typeof constraints.maxBytesExclusive === "number" && part.size >= constraints.maxBytesExclusive) {
    findings.fail(
      "request.body",
      "request_body_schema",
      pointer(),
      `the file must be smaller than ${constraints.maxBytesExclusive} bytes (is ${part.size})`,
    );
  }
  if (
    Array.isArray(constraints.mediaTypes) &&
    part.contentType &&
    !constraints.mediaTypes.includes(part.contentType)
  ) {
    const shown = ctx.vocabulary.mediaType(mediaTypeEssence(part.contentType));
    findings.fail(
      "request.body",
      "request_body_schema",
      pointer(),
      `file media type ${shown} is not accepted (${list(constraints.mediaTypes)})`,
    );
  }
  const extension = part.fileName?.includes(".")
    ? part.fileName.slice(part.fileName.lastIndexOf(".") + 1).toLowerCase()
    : "";
  if (
    Array.isArray(constraints.extensions) &&
    part.fileName !== undefined &&
    !constraints.extensions.includes(extension)
  ) {
    findings.fail(
      "request.body",
      "request_body_schema",
      pointer(),
      `the file's extension is not accepted (${list(constraints.extensions)})`,
    );
  }
}

/** The `x-file-constraints` of a form part's schema, resolved once per schema. */
function fileConstraints(ctx: CheckContext, property: Json): Json {
  if (typeof property !== "object" || property === null)
    return ctx.model.resolve(property, "").node?.["x-file-constraints"];
  let found = ctx.constraints.get(property);
  if (found === undefined) {
    found = { value: ctx.model.resolve(property, "").node?.["x-file-constraints"] };
    ctx.constraints.set(property, found);
  }
  return found.value;
}
