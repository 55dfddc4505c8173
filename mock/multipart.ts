// Just enough multipart/form-data parsing to check the EDD upload the way the service does.

export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  size: number;
}

/** The parts of a multipart/form-data body, or undefined when the body or its boundary is unusable. */
export function formParts(body: Buffer, contentType: string): FormPart[] | undefined {
  const boundary = contentType.match(/boundary=(?:"([^"]+)"|([^;]+))/i);
  const value = boundary?.[1] ?? boundary?.[2];
  if (!value) return undefined;
  const delimiter = Buffer.from(`--${value}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return undefined;
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) return undefined;
    const chunk = body.subarray(start + 2, next - 2);
    const split = chunk.indexOf("\r\n\r\n");
    if (split < 0) return undefined;
    const head = chunk.subarray(0, split).toString("utf8");
    const disposition = head.match(/content-disposition:[^\r\n]*/i)?.[0] ?? "";
    parts.push({
      name: disposition.match(/\bname="([^"]*)"/i)?.[1] ?? "",
      filename: disposition.match(/\bfilename="([^"]*)"/i)?.[1],
      contentType: head
        .match(/content-type:\s*([^\r\n;]+)/i)?.[1]
        ?.trim()
        .toLowerCase(),
      size: chunk.length - split - 4,
    });
    at = next;
  }
  return parts;
}
