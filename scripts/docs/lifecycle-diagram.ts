import { instance } from "@viz-js/viz";

/**
 * Render a Graphviz source to an SVG fragment that can sit inside an HTML page: the XML prolog,
 * the DOCTYPE (whose DTD URL a browser never needs) and comments are dropped.
 */
export async function renderDiagram(dot: string, label: string): Promise<string> {
  const viz = await instance();
  const result = viz.render(dot, { format: "svg", engine: "dot" });
  if (result.status !== "success") {
    const messages = result.errors.map((error) => `${error.level ?? "error"}: ${error.message}`).join("\n");
    throw new Error(`the diagram source does not render:\n${messages}`);
  }
  return result.output
    .replace(/<\?xml[^>]*\?>\s*/g, "")
    .replace(/<!DOCTYPE[^>]*>\s*/g, "")
    .replace(/<!--[\s\S]*?-->\s*/g, "")
    .replace(/<svg\b/, `<svg role="img" aria-label="${label.replace(/"/g, "&quot;")}" class="diagram"`)
    .trim();
}
