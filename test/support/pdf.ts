/** What is wrong with a PDF file's structure (header, cross-reference table, trailer); empty when sound. */
export function pdfStructureProblems(pdf: string): string[] {
  const problems: string[] = [];
  if (!pdf.startsWith("%PDF-1.")) problems.push("does not start with %PDF-1.");
  if (!/%%EOF\s*$/.test(pdf)) problems.push("does not end with %%EOF");
  const start = pdf.match(/startxref\s+(\d+)\s+%%EOF\s*$/);
  const xrefAt = Number(start?.[1] ?? -1);
  if (pdf.slice(xrefAt, xrefAt + 4) !== "xref")
    return [...problems, "startxref does not point at the xref table"];
  const table = pdf.slice(xrefAt).match(/^xref\n0 (\d+)\n([\s\S]*?)trailer/);
  if (!table) return [...problems, "no xref table"];
  const entries = (table[2] ?? "").split("\n").filter((l) => l.length > 0);
  if (entries.length !== Number(table[1])) problems.push("xref entry count differs from its header");
  entries.slice(1).forEach((entry, i) => {
    const offset = Number(entry.slice(0, 10));
    if (!pdf.startsWith(`${i + 1} 0 obj`, offset))
      problems.push(`object ${i + 1} is not at offset ${offset}`);
  });
  return problems;
}
