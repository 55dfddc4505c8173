// A small, valid PDF 1.4 of text lines: the sandbox's reports carry the record's reference and names.
// No PDF library is installed and one page of Helvetica needs none.

/** Text as a PDF literal string in WinAnsi: characters outside Latin-1 become "?". */
function literal(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 63;
    if (ch === "(" || ch === ")" || ch === "\\") out += `\\${ch}`;
    else if (code < 32 || code === 127) out += " ";
    else if (code < 127) out += ch;
    else if (code <= 255) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += "?";
  }
  return `(${out})`;
}

/** A one-page PDF with a title and lines of text (long lines are cut, at most 45 lines). */
export function renderPdf(title: string, lines: readonly string[]): Buffer {
  const text = [title, "", ...lines].slice(0, 47).map((line) => line.slice(0, 90));
  const ops = ["BT", "/F1 11 Tf", "14 TL", "56 780 Td"];
  for (const [i, line] of text.entries()) ops.push(`${i === 0 ? "" : "T* "}${literal(line)} Tj`);
  ops.push("ET");
  const stream = ops.join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
    `<< /Title ${literal(title)} /Producer (idv-contract sandbox) >>`,
  ];
  let pdf = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(Buffer.byteLength(pdf, "latin1"));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = Buffer.byteLength(pdf, "latin1");
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, "latin1");
}
