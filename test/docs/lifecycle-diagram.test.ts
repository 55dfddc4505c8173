import { describe, expect, it } from "vitest";
import { DIAGRAM_FONT, renderDiagram } from "../../scripts/docs/lifecycle-diagram.js";
import { readSiteSource } from "../../scripts/docs/layout.js";

describe("renderDiagram", () => {
  it("draws every label in the font its boxes were measured for, then only narrower fallbacks", async () => {
    const svg = await renderDiagram(readSiteSource("lifecycle.dot"), "Biometric verification lifecycle");
    const families = new Set([...svg.matchAll(/font-family="([^"]*)"/g)].map((m) => m[1]));
    expect([...families]).toEqual([`'${DIAGRAM_FONT}', 'Bitstream Vera Sans', Helvetica, Arial, sans-serif`]);
    expect(svg).toContain("PUT /api/v2/resend_text/:transaction_id");
  });

  it("refuses a source that names another font: its boxes would be measured for the wrong one", async () => {
    await expect(renderDiagram('digraph { a [fontname="Helvetica"] }', "x")).rejects.toThrow(
      /names Helvetica.*fontname="DejaVu Sans"/,
    );
    // Graphviz's default font (Times) counts as another font too.
    await expect(renderDiagram("digraph { a }", "x")).rejects.toThrow(/names Times/);
  });
});
