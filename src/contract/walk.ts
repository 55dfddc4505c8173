import type { Json } from "./json.js";

// One walk over a contract document, for everything that collects the names it writes (the words a
// report may show, the headers a recording may keep).

/**
 * Visit every object (not array) reachable from `roots` once, iteratively: a `--spec` is input too, and
 * may nest deep or refer to itself. Examples are not entered: they are data, possibly personal, and
 * their names and values teach nothing.
 */
export function walkContract(roots: unknown[], visit: (node: Record<string, Json>) => void): void {
  const stack: unknown[] = [...roots];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const object = node as Record<string, Json>;
    visit(object);
    for (const key of Object.keys(object))
      if (key !== "example" && key !== "examples") stack.push(object[key]);
  }
}
