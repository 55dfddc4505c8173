// What every check of an HTTP exchange reads (the contract, what reports may name, what coverage
// records), and the checks both sides of an exchange share: which documented media type a body was
// sent as, and whether a binary body starts as its media type does.
import type { ContractModel, MediaModel } from "./contract-model.js";
import type { DescribedMembers } from "./described-members.js";
import type { RecordedBody } from "../traffic/exchange.js";
import type { FindingList } from "../findings/findings.js";
import { bodySize, hasSignature, mediaTypeMatches, signatureLabel } from "../traffic/media.js";
import { mediaTypeEssence } from "../findings/redact.js";
import type { Vocabulary } from "../findings/vocabulary.js";
import type { HttpCoverage } from "../coverage/http-coverage.js";
import type { Json } from "../../src/contract/json.js";

/** The contract and the run's helpers, as each check of an exchange reads them. */
export interface CheckContext {
  readonly model: ContractModel;
  /** What reports may name: the contract's own words. */
  readonly vocabulary: Vocabulary;
  readonly described: DescribedMembers;
  /** Records what each exchange reached of the contract (only with --coverage). */
  readonly coverage?: HttpCoverage;
  /** `x-file-constraints` of form part schemas (`value` undefined when a schema has none). */
  readonly constraints: WeakMap<object, { value: Json }>;
}

/** Words of the contract as a message lists them. */
export const list = (values: string[]): string => values.join(", ");

/** The documented media type a recorded Content-Type matches; records a violation when none does. */
export function pickMedia(
  ctx: CheckContext,
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
      `media type ${ctx.vocabulary.mediaType(essence)} is not one the contract gives (${accepted()})`,
    );
  }
  return found;
}

/** A binary body that does not start with its media type's signature is a violation. */
export function checkBinary(
  ctx: CheckContext,
  media: MediaModel,
  body: RecordedBody,
  where: "request.body" | "response.body",
  check: "request_body_schema" | "response_body_schema",
  findings: FindingList,
): void {
  const schema = resolvedSchema(ctx, media);
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
export function resolvedSchema(ctx: CheckContext, media: MediaModel): Json {
  if (media.resolved === undefined)
    media.resolved = ctx.model.resolve(media.schema ?? {}, media.schemaPointer).node ?? {};
  return media.resolved;
}
