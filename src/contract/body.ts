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
  /** The part's value, when the body was read as bytes: a view into them, not a copy. */
  bytes?: Buffer;
}
