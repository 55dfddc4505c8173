import { escapeHtml, jsonBlock } from "./html.js";
import type { Json } from "../lib/json-ref.js";

/** The `x-gap` marks on one node, as an aside; empty when the node has none. */
export function renderGapMarks(node: Json): string {
  const value = node?.["x-gap"];
  if (!value) return "";
  const marks: Json[] = Array.isArray(value) ? value : [value];
  return marks
    .map(
      (mark) => `<aside class="gap-mark"><span class="gap-label">Gap</span>
        <q>${escapeHtml(mark?.quote ?? "")}</q>
        <span class="gap-choice">Choice: ${escapeHtml(mark?.choice ?? "")}</span></aside>`,
    )
    .join("");
}

/** The `x-` extensions of a node other than x-gap, as a definition list; tools may add new ones. */
export function renderExtensions(node: Json): string {
  if (!node || typeof node !== "object") return "";
  const entries = Object.entries<Json>(node).filter(
    ([key]) => key.startsWith("x-") && key !== "x-gap" && key !== "x-generated",
  );
  if (entries.length === 0) return "";
  return `<dl class="extensions">${entries
    .map(
      ([key, value]) =>
        `<dt><code>${escapeHtml(key)}</code></dt><dd>${
          typeof value === "string" ? escapeHtml(value) : jsonBlock(value)
        }</dd>`,
    )
    .join("")}</dl>`;
}
