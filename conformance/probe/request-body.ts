// Request bodies from the contract's examples: JSON as the example writes it, with every
// `reference` replaced by the probe run's marker, and multipart forms carrying a small PDF.

/** The boundary of the probe's multipart bodies: fixed, so that a reproducer sends the same bytes. */
export const FORM_BOUNDARY = "idv-probe-form-boundary";

/** The file the probe uploads: a minimal PDF (the contract accepts pdf; it is a few hundred bytes). */
export const PROBE_PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\n" +
    "trailer <</Root 1 0 R>>\n%idv-conformance probe\n%%EOF\n",
);

/** A body to send: bytes and their Content-Type. */
export interface BodyBytes {
  bytes: Buffer;
  contentType: string;
}

/** How deep `reference` members are looked for (they sit at the top or one object down). */
const MARK_DEPTH = 3;

/**
 * A copy of an example value with every string member named `reference` set to the marker: a
 * record the probe creates says where it came from. Only objects the example itself has are touched.
 */
export function markReferences(value: unknown, marker: string, depth = 0): unknown {
  if (depth > MARK_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => markReferences(v, marker, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const marked =
      key === "reference" && typeof member === "string" ? marker : markReferences(member, marker, depth + 1);
    // defineProperty: an example's `__proto__` member (if a --spec had one) stays a member.
    Object.defineProperty(out, key, { value: marked, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A multipart/form-data body with one file part (or a part of another name, for a negative test). */
export function formBody(
  part: string,
  file: { name: string; type: string; bytes: Buffer } = {
    name: "probe.pdf",
    type: "application/pdf",
    bytes: PROBE_PDF,
  },
): BodyBytes {
  const head = Buffer.from(
    `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name="${part}"; filename="${file.name}"\r\n` +
      `Content-Type: ${file.type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${FORM_BOUNDARY}--\r\n`);
  return {
    bytes: Buffer.concat([head, file.bytes, tail]),
    contentType: `multipart/form-data; boundary=${FORM_BOUNDARY}`,
  };
}

/** The body of an example: JSON bytes, or a form with the file part the schema requires. */
export function exampleBody(
  mediaType: string,
  value: unknown,
  marker: string,
  schema?: { required?: unknown },
): BodyBytes {
  if (mediaType === "multipart/form-data")
    return formBody(Array.isArray(schema?.required) ? String(schema.required[0] ?? "file") : "file");
  return { bytes: Buffer.from(JSON.stringify(markReferences(value, marker))), contentType: mediaType };
}
