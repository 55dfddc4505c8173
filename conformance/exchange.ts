/** A body as recorded: raw text, raw bytes, or a JSON value already parsed by the recorder. */
export type RecordedBody =
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: Buffer }
  | { kind: "json"; value: unknown }
  | { kind: "form"; parts: FormPart[] };

/** One part of a multipart/form-data body, as a HAR `postData.params` entry describes it. */
export interface FormPart {
  name: string;
  fileName?: string;
  contentType?: string;
  /** Size in bytes of the part's value, when known. */
  size: number;
}

/** Header names lower-cased; repeated headers joined with ", ". */
export type HeaderMap = Record<string, string>;

/** A request as recorded, normalised from HAR or NDJSON. */
export interface RecordedRequest {
  method: string;
  /** The path, without query string; not yet stripped of any base path. */
  path: string;
  query: Record<string, string[]>;
  headers: HeaderMap;
  body?: RecordedBody;
}

/** A response as recorded; `status` 0 when the recorder saw none. */
export interface RecordedResponse {
  status: number;
  headers: HeaderMap;
  body?: RecordedBody;
  /** True when the recorder says there was a body but did not keep it. */
  bodyNotRecorded?: boolean;
}

/** One API exchange read from a traffic file. */
export interface Exchange {
  /** The entry's position in its file, from 0. */
  index: number;
  /** The line of an NDJSON file, from 1. */
  line?: number;
  request: RecordedRequest;
  response?: RecordedResponse;
}

/** Whether a body is absent or has no bytes. */
export function isEmptyBody(body: RecordedBody | undefined): boolean {
  if (!body) return true;
  if (body.kind === "text") return body.text.length === 0;
  if (body.kind === "bytes") return body.bytes.length === 0;
  return false;
}
