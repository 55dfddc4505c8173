import type { FormPart, RecordedBody } from "./body.js";

/** The boundary parameter of a multipart Content-Type, if any. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  return match?.[1] ?? match?.[2];
}

/** A Content-Disposition parameter's value, quoted or a bare token (`filename=scan.pdf`); undefined if absent. */
function parameter(disposition: string, key: "name" | "filename"): string | undefined {
  const match = PARAMETERS[key].exec(disposition);
  return match ? (match[1] ?? match[2]) : undefined;
}
const PARAMETERS = {
  name: /;\s*name=(?:"([^"]*)"|([^;\s"]+))/i,
  filename: /;\s*filename=(?:"([^"]*)"|([^;\s"]+))/i,
};

/** The most parts a form is read with: the contract's uploads have one; each part costs heap. */
export const MAX_FORM_PARTS = 1_000;

/**
 * The parts of a multipart/form-data body (names, file names, types, sizes, and views of the values),
 * or undefined when it is not one or has more than MAX_FORM_PARTS parts.
 */
export function formParts(body: RecordedBody, boundary: string | undefined): FormPart[] | undefined {
  if (body.kind === "form") return body.parts;
  if (!boundary || body.kind === "json") return undefined;
  const bytes = body.kind === "bytes" ? body.bytes : Buffer.from(body.text, "latin1");
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = bytes.indexOf(delimiter);
  if (at < 0) return undefined;
  while (at >= 0) {
    const start = at + delimiter.length;
    // "--" after a delimiter closes the body.
    if (bytes[start] === 0x2d && bytes[start + 1] === 0x2d) break;
    const next = bytes.indexOf(delimiter, start);
    if (next < 0) return undefined;
    const chunk = bytes.subarray(start, next);
    const split = chunk.indexOf("\r\n\r\n");
    if (split < 0) return undefined;
    const head = chunk.subarray(0, split).toString("latin1");
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? "";
    const name = parameter(disposition, "name");
    if (name === undefined || parts.length >= MAX_FORM_PARTS) return undefined;
    const fileName = parameter(disposition, "filename");
    const type = /content-type:\s*([^\r\n;]+)/i.exec(head)?.[1]?.trim().toLowerCase();
    // The value ends before the CRLF that precedes the next delimiter.
    const size = Math.max(0, chunk.length - split - 4 - 2);
    const value = chunk.subarray(split + 4, split + 4 + size);
    parts.push({ name, fileName, contentType: type, size, bytes: value });
    at = next;
  }
  return parts;
}
