import { instance } from "@viz-js/viz";

/**
 * The one font a diagram's source may name. Graphviz has no fonts in WebAssembly: it sizes every box
 * and the drawing from its table of metrics for the font the source names. DejaVu Sans is in that
 * table and is what Linux browsers draw sans-serif with; where it is missing, the fallbacks after it
 * are narrower, so a label drawn with any of them still fits the room measured for it.
 */
export const DIAGRAM_FONT = "DejaVu Sans";
const FONT_STACK = `'${DIAGRAM_FONT}', 'Bitstream Vera Sans', Helvetica, Arial, sans-serif`;

/**
 * Render a Graphviz source to an SVG fragment that can sit inside an HTML page: the XML prolog,
 * the DOCTYPE (whose DTD URL a browser never needs) and comments are dropped, and the measured font
 * gets its narrower fallbacks. A source that names another font is refused: its boxes would be
 * measured for a font the browser may draw wider.
 */
export async function renderDiagram(dot: string, label: string): Promise<string> {
  const viz = await instance();
  const result = viz.render(dot, { format: "svg", engine: "dot" });
  if (result.status !== "success") {
    const messages = result.errors.map((error) => `${error.level ?? "error"}: ${error.message}`).join("\n");
    throw new Error(`the diagram source does not render:\n${messages}`);
  }
  const fonts = new Set([...result.output.matchAll(/font-family="([^"]*)"/g)].map((m) => m[1]));
  const others = [...fonts].filter((font) => font !== DIAGRAM_FONT);
  if (others.length > 0) {
    throw new Error(
      `the diagram ${label} names ${others.join(", ")}: give every graph, node and edge fontname="${DIAGRAM_FONT}", the font its boxes are measured for`,
    );
  }
  return result.output
    .replace(/<\?xml[^>]*\?>\s*/g, "")
    .replace(/<!DOCTYPE[^>]*>\s*/g, "")
    .replace(/<!--[\s\S]*?-->\s*/g, "")
    .replace(/font-family="[^"]*"/g, `font-family="${FONT_STACK}"`)
    .replace(/<svg\b/, `<svg role="img" aria-label="${label.replace(/"/g, "&quot;")}" class="diagram"`)
    .trim();
}
