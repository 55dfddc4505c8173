import type {
  Coercion,
  ContractModel,
  HeaderModel,
  MediaModel,
  OperationModel,
  ParameterModel,
  ResponseModel,
} from "./contract-model.js";
import { isJsonEssence } from "../../src/contract/media-type.js";
import { DescribedMembers } from "./described-members.js";
import {
  type Exchange,
  type HeaderMap,
  isEmptyBody,
  NOT_JSON,
  parseJson,
  type RecordedBody,
  type RecordedResponse,
} from "../traffic/exchange.js";
import { type EntryResult, FindingList } from "../findings/findings.js";
import { bodySize, hasSignature, mediaTypeMatches, signatureLabel } from "../traffic/media.js";
import { formParts, multipartBoundary } from "../../src/contract/multipart.js";
import { mediaTypeEssence, pointerToken } from "../findings/redact.js";
import { reportSchemaErrors } from "./schema-errors.js";
import { safeMethod, Vocabulary } from "../findings/vocabulary.js";
import { mergeWithheld } from "../findings/withheld.js";
import type { HttpCoverage } from "../coverage/http-coverage.js";
import type { Json } from "../../src/contract/json.js";

const list = (values: string[]): string => values.join(", ");

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

/** Checks recorded HTTP exchanges against a compiled contract. */
export class ExchangeChecker {
  private readonly described: DescribedMembers;
  /** What reports may name: the contract's own words. */
  private readonly vocabulary: Vocabulary;
  /** `x-file-constraints` of form part schemas (`value` undefined when a schema has none). */
  private readonly constraints = new WeakMap<object, { value: Json }>();

  /** @param coverage records what each exchange reached of the contract (only with --coverage) */
  constructor(
    private readonly model: ContractModel,
    private readonly coverage?: HttpCoverage,
  ) {
    this.described = new DescribedMembers(model.document);
    this.vocabulary = new Vocabulary(model.document);
  }

  /** Every check on one exchange; the result holds no recorded value that could identify anyone. */
  check(exchange: Exchange, file?: string): EntryResult {
    const findings = new FindingList(this.vocabulary);
    const { request } = exchange;
    const method = safeMethod(request.method);
    const route = this.model.routes.match(request.method, request.path);
    let operation: OperationModel | undefined;
    if (route.kind === "found") {
      operation = route.target;
      const unknown = exchange.notRecorded;
      this.coverage?.operation(operation);
      // What the log did not record is unknown, not absent: its checks are not run (said once a run).
      if (!unknown?.requestHeaders) this.checkSecurity(operation, request.headers, findings);
      this.checkParameters(operation, route.params, exchange, findings);
      if (!unknown?.requestBody)
        this.checkRequestBody(
          operation,
          request.headers,
          request.body,
          findings,
          request.bodyNotRecorded,
          !unknown?.requestHeaders,
        );
      this.checkResponse(operation, exchange, findings);
    } else if (route.kind === "method-not-allowed") {
      findings.fail(
        "request.route",
        "route_known",
        "",
        `the contract has no ${method} operation on this path (documented: ${list(route.allowed)})`,
      );
    } else {
      findings.fail(
        "request.route",
        "route_known",
        "",
        `no path of the contract matches this path${route.hint ? `; ${route.hint}` : ""}`,
      );
    }
    const result: EntryResult = {
      index: exchange.index,
      method,
      path: operation ? operation.template : this.model.routes.shape(request.path),
      operationId: operation?.operationId ?? null,
      ok: findings.violations.length === 0,
      violations: findings.violations,
      warnings: findings.warnings,
    };
    if (file !== undefined) result.file = file;
    if (exchange.line !== undefined) result.line = exchange.line;
    // Where the recording withheld a value, its stand-in's findings give way to the live ones.
    return exchange.withheld ? mergeWithheld(result, exchange.withheld, this.vocabulary) : result;
  }

  private checkSecurity(op: OperationModel, headers: HeaderMap, findings: FindingList): void {
    if (op.security.length === 0) return;
    // The common case, every header of an alternative present, allocates nothing.
    for (let i = 0; i < op.securityLower.length; i++) {
      let present = true;
      for (const name of op.securityLower[i] as string[]) if (!headers[name]) present = false;
      if (!present) continue;
      this.coverage?.security(op, i);
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

  private checkParameters(
    op: OperationModel,
    pathParams: Record<string, string>,
    exchange: Exchange,
    findings: FindingList,
  ): void {
    for (const parameter of op.parameters) {
      let raw: string | undefined;
      if (parameter.in === "path") {
        const value = pathParams[parameter.name];
        try {
          // Most segments hold no escape: nothing to decode.
          raw = value === undefined || !value.includes("%") ? value : decodeURIComponent(value);
        } catch {
          findings.fail(
            "request.parameter",
            "request_parameters",
            `/path/${pointerToken(parameter.name)}`,
            "is not validly percent-encoded",
          );
          continue;
        }
      } else if (parameter.in === "query") {
        raw = exchange.request.query[parameter.name]?.[0];
      } else if (parameter.in === "header") {
        if (exchange.notRecorded?.requestHeaders) continue;
        raw = exchange.request.headers[parameter.headerName];
      } else {
        continue;
      }
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
        this.coverage?.parameter(op, parameter, undefined);
        continue;
      }
      const value =
        parameter.in === "query" && parameter.array
          ? (exchange.request.query[parameter.name] ?? []).map((v) => coerce(v, parameter.itemCoercion))
          : coerce(raw, parameter.coercion);
      this.coverage?.parameter(op, parameter, value);
      const validate = this.model.validatorOf(parameter as ParameterModel & { schemaPointer: string });
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

  private checkRequestBody(
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
    const media = this.pickMedia(
      spec.media,
      contentType,
      "request.header",
      "request_content_type",
      findings,
      headersRecorded,
    );
    if (!media) return;
    if (isJsonEssence(media.mediaType)) {
      const value = parseJson(body);
      if (value === NOT_JSON) {
        findings.fail(
          "request.body",
          "request_body_schema",
          "",
          `the body is not valid JSON, although sent as ${media.mediaType}`,
        );
        return;
      }
      this.coverage?.requestBody(media, value);
      const validate = this.model.validatorOf(media);
      if (!validate(value))
        reportSchemaErrors(findings, "request.body", "request_body_schema", validate.errors, value);
      return;
    }
    if (media.mediaType === "multipart/form-data") {
      this.checkForm(media, body, multipartBoundary(contentType), findings);
      return;
    }
    this.checkBinary(media, body, "request.body", "request_body_schema", findings);
  }

  /** The documented media type a recorded Content-Type matches; records a violation when none does. */
  private pickMedia(
    media: MediaModel[],
    contentType: string | undefined,
    where: "request.header" | "response.header",
    check: "request_content_type" | "response_content_type",
    findings: FindingList,
    headersRecorded = true,
  ): MediaModel | undefined {
    const accepted = () => list(media.map((m) => m.mediaType));
    // A log without headers: the media type is unknown, and only a sole one can be assumed.
    if (!contentType && !headersRecorded) return media.length === 1 ? media[0] : undefined;
    if (!contentType) {
      findings.fail(
        where,
        check,
        "/Content-Type",
        `the Content-Type header is missing; the contract gives ${accepted()}`,
      );
      return undefined;
    }
    const essence = mediaTypeEssence(contentType);
    const found = essence ? media.find((m) => mediaTypeMatches(essence, m.mediaType)) : undefined;
    if (!found) {
      findings.fail(
        where,
        check,
        "/Content-Type",
        `media type ${this.vocabulary.mediaType(essence)} is not one the contract gives (${accepted()})`,
      );
    }
    return found;
  }

  private checkForm(
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
    const schema = this.resolvedSchema(media);
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
    if (this.coverage) {
      // Only which described parts were sent: a part's name is input, so never a plain object's key.
      const sent: Record<string, true> = Object.create(null);
      for (const part of parts) sent[part.name] = true;
      this.coverage.requestBody(media, sent);
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
      const constraints = this.fileConstraints(property);
      if (!constraints) continue;
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
        const shown = this.vocabulary.mediaType(mediaTypeEssence(part.contentType));
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
  }

  private checkBinary(
    media: MediaModel,
    body: RecordedBody,
    where: "request.body" | "response.body",
    check: "request_body_schema" | "response_body_schema",
    findings: FindingList,
  ): void {
    const schema = this.resolvedSchema(media);
    const declared =
      typeof schema.contentMediaType === "string" ? schema.contentMediaType.toLowerCase() : media.mediaType;
    const signed = hasSignature(body, declared);
    if (signed === false) {
      findings.fail(
        where,
        check,
        "",
        `the body is not ${declared}: it does not start with ${JSON.stringify(signatureLabel(declared))} (${bodySize(body)} bytes)`,
      );
    }
  }

  /** A media type's schema with its `$ref`s followed, resolved on first use. */
  private resolvedSchema(media: MediaModel): Json {
    if (media.resolved === undefined)
      media.resolved = this.model.resolve(media.schema ?? {}, media.schemaPointer).node ?? {};
    return media.resolved;
  }

  /** The `x-file-constraints` of a form part's schema, resolved once per schema. */
  private fileConstraints(property: Json): Json {
    if (typeof property !== "object" || property === null)
      return this.model.resolve(property, "").node?.["x-file-constraints"];
    let found = this.constraints.get(property);
    if (found === undefined) {
      found = { value: this.model.resolve(property, "").node?.["x-file-constraints"] };
      this.constraints.set(property, found);
    }
    return found.value;
  }

  private responseModel(op: OperationModel, status: number): ResponseModel | undefined {
    if (op.byStatus.has(status)) return op.byStatus.get(status);
    const model =
      op.responses.get(String(status)) ??
      op.responses.get(`${Math.floor(status / 100)}XX`) ??
      op.responses.get("DEFAULT");
    // Statuses are a bounded set (0-999), so the memo stays small.
    op.byStatus.set(status, model);
    return model;
  }

  private checkResponse(op: OperationModel, exchange: Exchange, findings: FindingList): void {
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
    const { status, headers, body } = response;
    const model = this.responseModel(op, status);
    if (!model) {
      findings.fail(
        "response.status",
        "status_code_documented",
        "",
        `status ${status} is not documented for ${op.operationId} (documented: ${list([...op.responses.values()].map((r) => r.key))})`,
      );
    }
    const essence = mediaTypeEssence(headers["content-type"]);
    let shapeBroken = false;
    // Parsed once, here or by the body check, whichever needs it first.
    let parsed: { value: unknown } | undefined;
    if (status >= 400 && op.errorShape && body && !isEmptyBody(body) && essence && isJsonEssence(essence)) {
      const value = parseJson(body);
      parsed = { value };
      if (value !== NOT_JSON) {
        const validate = this.model.validatorOf(op.errorShape);
        if (!validate(value)) {
          shapeBroken = true;
          reportSchemaErrors(
            findings,
            "response.body",
            "error_shape",
            validate.errors,
            value,
            "",
            `not a ${op.errorShape.name}: `,
          );
        }
      }
    }
    if (!model) return;
    const unknown = exchange.notRecorded;
    this.coverage?.status(model);
    if (!unknown?.responseHeaders) this.checkResponseHeaders(model, headers, findings);
    if (!unknown?.responseBody)
      this.checkResponseBody(model, response, shapeBroken, parsed, findings, !unknown?.responseHeaders);
  }

  private checkResponseHeaders(model: ResponseModel, headers: HeaderMap, findings: FindingList): void {
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
      this.coverage?.responseHeader(header, value);
      if (!header.schemaPointer) continue;
      const validate = this.model.validatorOf(header as HeaderModel & { schemaPointer: string });
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
  private checkResponseBody(
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
    const media = this.pickMedia(
      model.media,
      headers["content-type"],
      "response.header",
      "response_content_type",
      findings,
      headersRecorded,
    );
    if (!media) return;
    if (isJsonEssence(media.mediaType)) {
      const value = parsed ? parsed.value : parseJson(body);
      if (value === NOT_JSON) {
        findings.fail(
          "response.body",
          "response_body_schema",
          "",
          `the body is not valid JSON, although sent as ${media.mediaType}`,
        );
        return;
      }
      this.coverage?.responseBody(media, value);
      // A body of the wrong error shape has been reported by error_shape; the narrowed schema would repeat it.
      if (shapeBroken) return;
      const validate = this.model.validatorOf(media);
      if (!validate(value))
        reportSchemaErrors(findings, "response.body", "response_body_schema", validate.errors, value);
      if (media.schema) this.described.warnUndescribed(media.schema, value, findings, "response.body");
      return;
    }
    this.checkBinary(media, body, "response.body", "response_body_schema", findings);
  }
}
