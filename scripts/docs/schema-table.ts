import { renderGapMarks } from "./gap-marks.js";
import { escapeHtml, inlineMarkdown, slug } from "./html.js";
import { type Json, refName, resolveRef } from "../lib/json-ref.js";

/** One row of a member table: a member at some depth of a schema. */
interface Row {
  name: string;
  depth: number;
  type: string;
  required: boolean;
  details: string;
  id?: string;
}

/**
 * Component schemas already unfolded on a page, by `$ref`, with the id of the row that unfolds
 * them: a later use links there instead of repeating a long table (a biometric result is carried
 * by two events).
 */
export type ExpandedSchemas = Map<string, string>;

interface Walk {
  document: Json;
  rows: Row[];
  expanded: ExpandedSchemas;
}

const MAX_DEPTH = 10;

/**
 * A schema as a nested member table: every property with its type, whether it is required, its
 * description, constraints and gap marks; objects, arrays, allOf/oneOf/anyOf and refs unfolded.
 */
export function renderSchemaTable(
  document: Json,
  schema: Json,
  caption: string,
  expanded: ExpandedSchemas = new Map(),
): string {
  const walk: Walk = { document, rows: [], expanded };
  const root = unwrapMultiFormat(schema);
  const resolved = resolveRef(document, root);
  const summary = `${schemaType(document, root)}${describe(resolved, root)}`;
  membersOf(walk, root, 0, root?.$ref ? [root.$ref] : []);
  const body = walk.rows.length
    ? walk.rows
        .map(
          (row) =>
            `<tr${row.id ? ` id="${row.id}"` : ""}><td class="member" style="--depth:${row.depth}"><code>${escapeHtml(row.name)}</code></td><td><code>${escapeHtml(row.type)}</code></td><td>${row.required ? "required" : ""}</td><td>${row.details}</td></tr>`,
        )
        .join("")
    : `<tr><td colspan="4">No declared members.</td></tr>`;
  return `<div class="schema">
    <p class="schema-caption"><strong>${escapeHtml(caption)}</strong>: ${summary}</p>
    <table class="members"><thead><tr><th>Member</th><th>Type</th><th>Required</th><th>Description</th></tr></thead>
    <tbody>${body}</tbody></table></div>`;
}

/** AsyncAPI allows `{schemaFormat, schema}` in place of a schema. */
function unwrapMultiFormat(schema: Json): Json {
  return schema && typeof schema === "object" && "schemaFormat" in schema && "schema" in schema
    ? schema.schema
    : schema;
}

/** Properties (and required names) of a schema, with allOf members merged in order. */
function propertiesOf(
  document: Json,
  schema: Json,
  stack: string[],
): { properties: [string, Json][]; required: Set<string> } {
  const node = resolveRef(document, schema);
  const properties = new Map<string, Json>();
  const required = new Set<string>(Array.isArray(node?.required) ? node.required : []);
  for (const part of Array.isArray(node?.allOf) ? node.allOf : []) {
    const ref = part?.$ref;
    if (ref && stack.includes(ref)) continue;
    const inner = propertiesOf(document, part, ref ? [...stack, ref] : stack);
    for (const [name, value] of inner.properties)
      properties.set(name, mergeNarrowing(document, properties.get(name), value));
    for (const name of inner.required) required.add(name);
  }
  for (const [name, value] of Object.entries<Json>(node?.properties ?? {})) {
    properties.set(name, mergeNarrowing(document, properties.get(name), value));
  }
  return { properties: [...properties], required };
}

/** A later allOf member narrows a property (a const, a null): keep what the earlier one says that it does not. */
function mergeNarrowing(document: Json, earlier: Json, later: Json): Json {
  if (!earlier || later?.$ref) return later;
  const base = resolveRef(document, earlier);
  if (!base || typeof base !== "object") return later;
  return { ...base, ...later, description: later.description ?? earlier.description ?? base.description };
}

const hasMembers = (node: Json): boolean =>
  Boolean(node?.properties || node?.allOf || node?.oneOf || node?.anyOf);

/**
 * Add the row of one schema use, then unfold it: a recursive ref stops, a component unfolded
 * earlier on the page links to that row, any other ref is unfolded and remembered.
 */
function addRow(
  walk: Walk,
  row: Omit<Row, "type" | "details">,
  raw: Json,
  stack: string[],
  prefix = "",
): void {
  const ref = raw?.$ref as string | undefined;
  const value = resolveRef(walk.document, raw);
  const type = schemaType(walk.document, raw);
  if (ref && stack.includes(ref)) {
    walk.rows.push({
      ...row,
      type,
      details: `${prefix}Recursive: see ${escapeHtml(refName(raw) ?? "above")}.`,
    });
    return;
  }
  const seen = ref ? walk.expanded.get(ref) : undefined;
  if (ref && seen && hasMembers(value)) {
    const link = `<p class="facts">Members as <a href="#${seen}">above</a> (${escapeHtml(refName(raw) ?? "")}).</p>`;
    walk.rows.push({ ...row, type, details: `${prefix}${describe(value, raw)}${link}` });
    return;
  }
  const id =
    ref && hasMembers(value) ? `schema-${slug(refName(raw) ?? "")}-${walk.expanded.size + 1}` : undefined;
  if (ref && id) walk.expanded.set(ref, id);
  walk.rows.push({ ...row, type, details: `${prefix}${describe(value, raw)}`, ...(id ? { id } : {}) });
  nested(walk, raw, row.depth + 1, ref ? [...stack, ref] : stack);
}

function membersOf(walk: Walk, schema: Json, depth: number, stack: string[]): void {
  if (depth > MAX_DEPTH) return;
  const node = resolveRef(walk.document, schema);
  if (!node || typeof node !== "object") return;
  const { properties, required } = propertiesOf(walk.document, schema, stack);
  for (const [name, raw] of properties)
    addRow(walk, { name, depth, required: required.has(name) }, raw, stack);
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    addRow(
      walk,
      { name: "*", depth, required: false },
      node.additionalProperties,
      stack,
      "Any other member. ",
    );
  }
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const list: Json[] = Array.isArray(node[keyword]) ? node[keyword] : [];
    list.forEach((variant, index) => {
      const label = resolveRef(walk.document, variant)?.title ?? refName(variant) ?? `variant ${index + 1}`;
      const name = `${keyword === "oneOf" ? "one of" : "any of"}: ${label}`;
      addRow(walk, { name, depth, required: false }, variant, stack);
    });
  }
}

/** Unfold what sits inside a member: its array items, or its own members and variants. */
function nested(walk: Walk, raw: Json, depth: number, stack: string[]): void {
  const value = resolveRef(walk.document, raw);
  if (!value || typeof value !== "object") return;
  const items = value.items && typeof value.items === "object" ? value.items : undefined;
  if (items) {
    if (hasMembers(resolveRef(walk.document, items)))
      addRow(walk, { name: "[ ]", depth, required: false }, items, stack);
    return;
  }
  membersOf(walk, raw, depth, stack);
}

/** A short type: "string | null", "array of BiometricResult", "object (Address)", "const \"created\"". */
function schemaType(document: Json, raw: Json): string {
  const node = resolveRef(document, unwrapMultiFormat(raw));
  if (node === true || node === undefined) return "any";
  if (node === false) return "never";
  const name = refName(raw) ?? node.title;
  let type: string;
  if (node.const !== undefined) type = `const ${JSON.stringify(node.const)}`;
  else if (Array.isArray(node.type)) type = node.type.join(" | ");
  else if (typeof node.type === "string") type = node.type;
  else if (node.allOf) type = "object";
  else if (node.oneOf || node.anyOf) type = "one of";
  else if (node.properties) type = "object";
  else type = "any";
  if (node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"))) {
    const items = node.items ? schemaType(document, node.items) : "any";
    type = type.replace("array", `array of ${items}`);
  }
  if (node.format) type += ` (${node.format})`;
  return name && (node.properties || node.allOf || node.oneOf || node.anyOf) ? `${type} ${name}` : type;
}

/** Description, constraints and gap marks of one schema node, as HTML. */
function describe(node: Json, raw: Json): string {
  if (!node || typeof node !== "object") return "";
  const parts: string[] = [];
  // A $ref keeps the sibling description (3.1 / 2020-12) over the target's own.
  const description = raw?.description ?? node.description;
  if (description) parts.push(inlineMarkdown(description));
  const facts: string[] = [];
  if (Array.isArray(node.enum))
    facts.push(
      `one of ${node.enum.map((v: unknown) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(", ")}`,
    );
  if (node.pattern) facts.push(`pattern <code>${escapeHtml(node.pattern)}</code>`);
  for (const key of [
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
  ]) {
    if (node[key] !== undefined) facts.push(`${key} ${escapeHtml(node[key])}`);
  }
  if (node.default !== undefined)
    facts.push(`default <code>${escapeHtml(JSON.stringify(node.default))}</code>`);
  if (Array.isArray(node.examples) && node.examples.length) {
    facts.push(
      `e.g. ${node.examples.map((v: unknown) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(", ")}`,
    );
  }
  if (node.additionalProperties === false || node.unevaluatedProperties === false)
    facts.push("no other members");
  if (facts.length) parts.push(`<p class="facts">${facts.join("; ")}</p>`);
  // Marks on the referring node and on the schema it points at are both shown.
  parts.push(renderGapMarks(raw));
  if (node !== raw) parts.push(renderGapMarks(node));
  return parts.join("");
}
