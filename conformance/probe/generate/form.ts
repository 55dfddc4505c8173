// multipart/form-data bodies of an upload: real small files (files.ts) of the formats and extensions
// its `x-file-constraints` accept, under generated names (non-ASCII letters, spaces), built with the
// probe's own form encoder; and the uploads that break one rule (an extension or a media type the
// contract refuses, the file part missing, the file sent twice).
import fc from "fast-check";
import type { Json } from "../../../src/contract/json.js";
import { type BodyBytes, FORM_BOUNDARY, formBody } from "../request-body.js";
import { EXTENSIONS, type FileFormat, makeFile } from "./files.js";
import { deref, isObject } from "./schema-shape.js";
import { textArbitrary } from "./strings.js";

/** An upload as generated: the part, the file's name, its media type and bytes. */
export interface FormValue {
  part: string;
  fileName: string;
  mediaType: string;
  bytes: Buffer;
}

/** What a generated upload is described as (its bytes are in the body): no file content. */
export const describeForm = (v: FormValue) => ({
  part: v.part,
  fileName: v.fileName,
  mediaType: v.mediaType,
  size: v.bytes.length,
});

/** The body of an upload, by the probe's form encoder. */
export const formBytes = (v: FormValue): BodyBytes =>
  formBody(v.part, { name: v.fileName, type: v.mediaType, bytes: v.bytes });

/** The file part of a form schema and what it accepts: the formats made here that both lists allow. */
export function fileRules(
  document: Json,
  schema: Json,
): { part: string; formats: [FileFormat, string[]][] } | undefined {
  const s = deref(document, schema);
  if (!isObject(s) || !isObject(s.properties)) return undefined;
  const required: string[] = Array.isArray(s.required) ? s.required.map(String) : [];
  const entries = Object.entries<Json>(s.properties).map(([name, p]) => [name, deref(document, p)] as const);
  const file =
    entries.find(([name, p]) => required.includes(name) && (p?.format === "binary" || p?.contentMediaType)) ??
    entries[0];
  if (!file) return undefined;
  const limits: Json = file[1]?.["x-file-constraints"] ?? {};
  const types: string[] = Array.isArray(limits.mediaTypes) ? limits.mediaTypes : Object.keys(EXTENSIONS);
  const extensions: string[] | undefined = Array.isArray(limits.extensions) ? limits.extensions : undefined;
  const formats = (Object.keys(EXTENSIONS) as FileFormat[])
    .filter((f) => types.includes(f))
    .map((f): [FileFormat, string[]] => [
      f,
      EXTENSIONS[f].filter((e) => !extensions || extensions.includes(e)),
    ])
    .filter(([, exts]) => exts.length > 0);
  return formats.length === 0 ? undefined : { part: file[0], formats };
}

/** A file's base name: free text (non-ASCII letters, spaces), never a quote, a slash or a line break. */
const baseName = textArbitrary(1, 24).map((t) => t.trim() || "scan");

/** Valid uploads of a form schema, or undefined when it accepts none of the formats made here. */
export function formArbitrary(document: Json, schema: Json): fc.Arbitrary<FormValue> | undefined {
  const rules = fileRules(document, schema);
  if (!rules) return undefined;
  return fc
    .tuple(
      fc.constantFrom(...rules.formats),
      fc.nat(),
      baseName,
      fc.boolean(),
      fc.integer({ min: 0, max: 255 }),
      textArbitrary(0, 40),
    )
    .map(([[format, exts], pick, base, upper, seed, text]) => {
      const ext = exts[pick % exts.length]!;
      return {
        part: rules.part,
        fileName: `${base}.${upper ? ext.toUpperCase() : ext}`,
        mediaType: format,
        bytes: makeFile(format, seed, text),
      };
    });
}

/** A form of no part at all: the closing delimiter alone. */
const emptyForm = (): BodyBytes => ({
  bytes: Buffer.from(`--${FORM_BOUNDARY}--\r\n`),
  contentType: `multipart/form-data; boundary=${FORM_BOUNDARY}`,
});

/** The same file part twice in one form. */
function twice(v: FormValue): BodyBytes {
  const one = formBytes(v).bytes;
  const close = Buffer.byteLength(`--\r\n`);
  const open = Buffer.byteLength(`--${FORM_BOUNDARY}`);
  return {
    bytes: Buffer.concat([one.subarray(0, one.length - close), one.subarray(open)]),
    contentType: formBytes(v).contentType,
  };
}

/** An upload broken in one rule: what it breaks, the body, and its description. */
export interface BrokenForm {
  kind: string;
  rule: string;
  body: BodyBytes;
  value: unknown;
}

/** Uploads that break one rule each, on top of a valid one. */
export function brokenFormArbitrary(valid: fc.Arbitrary<FormValue>): fc.Arbitrary<BrokenForm> {
  return valid.chain((v) => {
    const stem = v.fileName.slice(0, v.fileName.lastIndexOf("."));
    const where = `/${v.part}`;
    const renamed = (ext: string): BrokenForm => {
      const w = { ...v, fileName: `${stem}.${ext}` };
      return {
        kind: "file-extension",
        rule: `${where}: a file extension the contract does not accept`,
        body: formBytes(w),
        value: describeForm(w),
      };
    };
    const retyped: BrokenForm = {
      kind: "file-type",
      rule: `${where}: a file media type the contract does not accept`,
      body: formBytes({ ...v, mediaType: "application/zip" }),
      value: describeForm({ ...v, mediaType: "application/zip" }),
    };
    const missing: BrokenForm = {
      kind: "required",
      rule: `required part ${where} missing`,
      body: emptyForm(),
      value: { parts: [] },
    };
    const doubled: BrokenForm = {
      kind: "multiple-files",
      rule: `${where} sent twice (one file per request)`,
      body: twice(v),
      value: { parts: [describeForm(v), describeForm(v)] },
    };
    return fc.oneof(
      fc.constantFrom("exe", "gif", "docx", "html").map(renamed),
      fc.constant(retyped),
      fc.constant(missing),
      fc.constant(doubled),
    );
  });
}
