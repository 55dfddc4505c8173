import { describe, expect, it } from "vitest";
import { deref, type Json, loadOpenApi, operations } from "../support/contract.js";
import { pdfStructureProblems } from "../support/pdf.js";

const doc = loadOpenApi();

const pdfExamples = operations(doc).flatMap(({ method, path, op }) =>
  Object.values<Json>(deref(doc, op.responses["200"]).content ?? {})
    .filter(
      (_m, i, all) => Object.keys(deref(doc, op.responses["200"]).content)[i] === "application/pdf" && all,
    )
    .flatMap((media: Json) =>
      Object.entries<Json>(media.examples ?? {}).map(
        ([name, ex]) => [`${method.toUpperCase()} ${path} ${name}`, deref(doc, ex).value] as const,
      ),
    ),
);

describe("PDF examples are real PDF documents", () => {
  it("every PDF endpoint has one", () => {
    expect(pdfExamples.length).toBeGreaterThanOrEqual(7);
  });

  it.each(pdfExamples)("%s", (_name, value) => {
    expect(pdfStructureProblems(String(value))).toEqual([]);
  });

  it("a damaged PDF is caught", () => {
    const [, value] = pdfExamples[0] ?? ["", ""];
    expect(pdfStructureProblems(String(value).replace("1 0 obj", "1 0 ob"))).not.toEqual([]);
  });
});
