import { readFile } from "node:fs/promises";
import bundled from "../../generated/asyncapi.json" with { type: "json" };
import { AsyncApiModel, type Json, type MessageModel } from "./asyncapi-model.js";
import { DescribedMembers } from "./described-members.js";
import { type Exchange, isEmptyBody, NOT_JSON, parseJson, type RecordedBody } from "../traffic/exchange.js";
import { type EntryResult, FindingList } from "../findings/findings.js";
import { checkEntry, describeJsonError, InputError } from "../traffic/input-error.js";
import { readExchanges, type TrafficFormat } from "../traffic/read-traffic.js";
import { mediaTypeEssence, pointerToken } from "../findings/redact.js";
import { reportSchemaErrors } from "./schema-errors.js";
import { UNREAD_ROUTE, unjudgedResult } from "../findings/unjudged.js";
import { safeMethod, Vocabulary } from "../findings/vocabulary.js";
import type { WebhookCoverage } from "../coverage/webhook-coverage.js";
import type { SeenLocations } from "../coverage/seen.js";

/** Checks webhook deliveries (inbound POSTs a receiver recorded) against the AsyncAPI contract. */
export interface WebhookChecker {
  /** Check one delivery: its request is the POST the service sent. */
  checkDelivery(delivery: Exchange, file?: string): EntryResult;
  /** Check every delivery of a HAR or NDJSON file, streaming; throws InputError on unusable input. */
  checkFile(file: string, format?: TrafficFormat): AsyncGenerator<EntryResult>;
}

const NO_BODY = Symbol("no body");

/** The JSON value of a delivery's body; NO_BODY or NOT_JSON when it has none. */
function parseBody(body: RecordedBody | undefined): unknown {
  return !body || isEmptyBody(body) ? NO_BODY : parseJson(body);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The bundled AsyncAPI contract shipped with the package. */
export const bundledAsyncApi = (): Json => bundled;

/** Read a bundled AsyncAPI 3 document (JSON). */
export async function readAsyncApi(file: string): Promise<Json> {
  let document: Json;
  try {
    document = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    if (error instanceof SyntaxError) throw new InputError(file, describeJsonError(error));
    throw new InputError(file, "cannot be read");
  }
  if (typeof document?.asyncapi !== "string" || !document.asyncapi.startsWith("3.")) {
    throw new InputError(file, "is not an AsyncAPI 3 document (no `asyncapi: 3.x` member)");
  }
  return document;
}

class DeliveryChecker {
  private readonly described: DescribedMembers;
  /** What reports may name: the contract's own words. */
  private readonly vocabulary: Vocabulary;

  /** @param coverage records what each delivery reached of the contract (only with --coverage) */
  constructor(
    private readonly model: AsyncApiModel,
    private readonly coverage?: WebhookCoverage,
  ) {
    this.described = new DescribedMembers(model.document);
    this.vocabulary = new Vocabulary(model.document);
  }

  check(delivery: Exchange, file?: string): EntryResult {
    const findings = new FindingList(this.vocabulary);
    const { request } = delivery;
    const method = safeMethod(request.method);
    if (method !== "POST") {
      findings.fail(
        "delivery.channel",
        "channel_known",
        "",
        `deliveries are POST requests; this one is ${method}`,
      );
    }
    const body = parseBody(request.body);
    if (body === NO_BODY) findings.fail("delivery.body", "payload_schema", "", "the delivery has no body");
    if (body === NOT_JSON) findings.fail("delivery.body", "payload_schema", "", "the body is not valid JSON");
    const matched = this.match(body, request.headers);
    if (matched) this.coverage?.delivery(matched, body === NO_BODY || body === NOT_JSON ? undefined : body);
    if (matched) this.checkMessage(matched, body, request.headers, findings);
    else this.unknownType(body, request.headers, findings);
    return {
      ...(file === undefined ? {} : { file }),
      index: delivery.index,
      ...(delivery.line === undefined ? {} : { line: delivery.line }),
      method,
      // The receiver's own path is not the contract's, and is recorded: not shown.
      path: "",
      operationId: matched?.key ?? null,
      ok: findings.violations.length === 0,
      violations: findings.violations,
      warnings: findings.warnings,
    };
  }

  /** The message whose pinned values (event name, event-type header) the delivery carries. */
  private match(body: unknown, headers: Record<string, string>): MessageModel | undefined {
    const candidates = this.model.messages.filter(
      (m) =>
        m.discriminators.length > 0 &&
        m.discriminators.every((d) =>
          d.in === "header" ? headers[d.name] === d.value : isObject(body) && body[d.name] === d.value,
        ),
    );
    if (candidates.length <= 1) return candidates[0];
    // Several messages pin the same values: the one whose payload fits is meant.
    return (
      candidates.find((m) => !m.payloadPointer || this.model.validator(m.payloadPointer)(body)) ??
      candidates[0]
    );
  }

  private checkMessage(
    m: MessageModel,
    body: unknown,
    headers: Record<string, string>,
    findings: FindingList,
  ): void {
    const essence = mediaTypeEssence(headers["content-type"]);
    if (!headers["content-type"]) {
      findings.fail(
        "delivery.header",
        "required_headers",
        "/Content-Type",
        `the Content-Type header is missing; the contract gives ${m.contentType}`,
      );
    } else if (essence !== m.contentType) {
      findings.fail(
        "delivery.header",
        "required_headers",
        "/Content-Type",
        `media type ${this.vocabulary.mediaType(essence)} is not ${m.contentType}`,
      );
    }
    this.checkHeaders(m, headers, findings);
    if (m.payloadPointer && body !== NO_BODY && body !== NOT_JSON) {
      const validate = this.model.validator(m.payloadPointer);
      if (!validate(body))
        reportSchemaErrors(findings, "delivery.body", "payload_schema", validate.errors, body);
      this.described.warnUndescribed(m.payload, body, findings, "delivery.body", "payload_schema");
    }
  }

  private checkRequiredHeaders(
    m: MessageModel,
    headers: Record<string, string>,
    findings: FindingList,
  ): void {
    for (const { name, key } of this.model.requiredHeadersOf(m)) {
      // Content-Type has been judged against the message's content type already.
      if (key === "content-type" || headers[key] !== undefined) continue;
      findings.fail(
        "delivery.header",
        "required_headers",
        `/${pointerToken(name)}`,
        `the required ${name} header is missing`,
      );
    }
  }

  private checkHeaders(m: MessageModel, headers: Record<string, string>, findings: FindingList): void {
    this.checkRequiredHeaders(m, headers, findings);
    if (!m.headersPointer) return;
    // Header names are case-insensitive: present the recorded ones under the names the contract writes.
    const described: Record<string, string> = Object.create(null);
    for (const [lower, written] of m.headerNames) {
      const value = headers[lower];
      if (value !== undefined) described[written] = value;
    }
    const validate = this.model.validator(m.headersPointer);
    if (validate(described)) return;
    // Missing headers and the Content-Type have been reported above, in words of their own.
    const errors = (validate.errors ?? []).filter(
      (e) => e.keyword !== "required" && e.instancePath.toLowerCase() !== "/content-type",
    );
    reportSchemaErrors(findings, "delivery.header", "required_headers", errors, described);
  }

  /** No message fits: a new event type of a known channel is tolerated; anything else is unknown. */
  private unknownType(body: unknown, headers: Record<string, string>, findings: FindingList): void {
    for (const channel of this.model.channels) {
      const { marker } = channel;
      const carries =
        marker.in === "header"
          ? headers[marker.name] !== undefined
          : isObject(body) && typeof body[marker.name] === "string";
      if (!carries) continue;
      findings.warn(
        marker.in === "header" ? "delivery.header" : "delivery.body",
        "channel_known",
        `/${pointerToken(marker.label)}`,
        `a type of ${channel.id} delivery the contract does not describe (it describes ${this.model.knownTypes(channel).join(", ")}); new types are tolerated`,
      );
      const envelope = channel.first.envelopePointer;
      if (envelope && body !== NO_BODY && body !== NOT_JSON) {
        const validate = this.model.validator(envelope);
        if (!validate(body))
          reportSchemaErrors(findings, "delivery.body", "payload_schema", validate.errors, body);
      }
      this.checkRequiredHeaders(channel.first, headers, findings);
      return;
    }
    findings.fail(
      "delivery.channel",
      "channel_known",
      "",
      `the delivery matches no channel of the contract: it carries none of ${this.model.markers.join(", ")}`,
    );
  }
}

/** The coverage hook of a run that asked for coverage, once the generated index is read. */
async function webhookCoverage(model: AsyncApiModel, seen: SeenLocations): Promise<WebhookCoverage> {
  const { WebhookCoverage: Coverage, coverageIndexRead } = await import("../coverage/webhook-coverage.js");
  await coverageIndexRead;
  return new Coverage(model, seen);
}

/**
 * Create a webhook checker for an AsyncAPI document (the bundled one by default) or a file; with
 * `coverage`, what each delivery reaches of the contract is recorded there.
 */
export async function createWebhookChecker(
  options: { spec?: Json; specFile?: string; coverage?: SeenLocations } = {},
): Promise<WebhookChecker> {
  const document = options.spec ?? (options.specFile ? await readAsyncApi(options.specFile) : bundled);
  const model = new AsyncApiModel(document);
  const seen = options.coverage;
  // Loaded only when coverage is asked for: a plain check does not pay for it.
  const coverage = seen ? await webhookCoverage(model, seen) : undefined;
  const checker = new DeliveryChecker(model, coverage);
  return {
    checkDelivery: (delivery, file) => checker.check(delivery, file),
    async *checkFile(file, format) {
      for await (const delivery of readExchanges(file, format))
        // The receiver's answer is not judged, so only an entry that was not read goes unchecked.
        yield delivery.unjudged?.reason === "too-large"
          ? unjudgedResult(delivery, UNREAD_ROUTE, file)
          : checkEntry(file, delivery, (x) => checker.check(x, file));
    },
  };
}
