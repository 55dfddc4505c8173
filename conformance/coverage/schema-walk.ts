// The coverage walk of a value through its schema: which members were present, which oneOf/anyOf
// branches it took and which enum values it had, each as the contract location that describes it.
// The same nodes give the universe of a report (everything reachable from a root), so what the walk
// can mark and what a report counts are one set.
import type { ValidateFunction } from "ajv";
import { escapeToken, unescapeToken } from "../../src/json-pointer.js";
import { ownMember, resolveRef } from "../checks/resolve-ref.js";

// Schemas are walked structurally.
type Json = any;

/** The deepest a value is walked: deeper members are not counted (recursion over input is bounded). */
const MAX_DEPTH = 64;

/** One schema, `$ref`s followed, with what the walk needs of it. */
export interface SchemaNode {
  pointer: string;
  /** Named members: name, location (`…/properties/name`), schema. */
  members: { name: string; location: string; node: SchemaNode }[];
  /** Enum values of a primitive type → the location of the value in `enum`. */
  enumValues: Map<unknown, string> | undefined;
  /** Every `enum` location, primitive or not (the universe). */
  enumLocations: string[];
  allOf: SchemaNode[];
  /** oneOf/anyOf branches: location (`…/oneOf/1`) and schema; a value takes those it is valid against. */
  branches: { location: string; node: SchemaNode }[];
  items: SchemaNode[];
}

/** Where a walk records what it reached. */
export interface WalkSinks {
  members: Set<string>;
  branches: Set<string>;
  enums: Set<string>;
  schemas: Set<string>;
}

const isPrimitive = (v: unknown) => v === null || (typeof v !== "object" && typeof v !== "function");

/** The schema nodes of one document, built once per location. */
export class SchemaWalker {
  private readonly nodes = new Map<string, SchemaNode>();

  /** @param validator the validator of the schema at a pointer (ajv compiling on first use) */
  constructor(
    private readonly document: Json,
    private readonly validator: (pointer: string) => ValidateFunction,
  ) {}

  /** The node of the schema at `pointer` in the document. */
  at(pointer: string): SchemaNode {
    const schema = pointer
      .slice(1)
      .split("/")
      .map(unescapeToken)
      .reduce((n: Json, k) => ownMember(n, k), this.document);
    return this.node(schema, pointer);
  }

  /** The node of the schema at `pointer` (given as `schema`, which may be a `$ref`). */
  node(schema: Json, pointer: string, depth = 0): SchemaNode {
    let resolved: { node: Json; pointer: string };
    try {
      resolved = resolveRef(this.document, schema, pointer);
    } catch {
      resolved = { node: undefined, pointer };
    }
    const known = this.nodes.get(resolved.pointer);
    if (known) return known;
    const node: SchemaNode = {
      pointer: resolved.pointer,
      members: [],
      enumValues: undefined,
      enumLocations: [],
      allOf: [],
      branches: [],
      items: [],
    };
    // Kept before its parts are built: a recursive schema then meets this node again.
    this.nodes.set(resolved.pointer, node);
    const s = resolved.node;
    if (s === null || typeof s !== "object" || depth > MAX_DEPTH) return node;
    this.fill(node, s, resolved.pointer, depth + 1);
    return node;
  }

  private fill(node: SchemaNode, s: Json, at: string, depth: number): void {
    const properties = ownMember(s, "properties");
    if (properties && typeof properties === "object")
      for (const name of Object.keys(properties)) {
        const location = `${at}/properties/${escapeToken(name)}`;
        node.members.push({ name, location, node: this.node(properties[name], location, depth) });
      }
    if (Array.isArray(s.enum)) {
      node.enumValues = new Map();
      s.enum.forEach((value: unknown, i: number) => {
        node.enumLocations.push(`${at}/enum/${i}`);
        if (isPrimitive(value) && !node.enumValues!.has(value))
          node.enumValues!.set(value, `${at}/enum/${i}`);
      });
    }
    const list = (key: string): Json[] => (Array.isArray(s[key]) ? s[key] : []);
    list("allOf").forEach((sub, i) => node.allOf.push(this.node(sub, `${at}/allOf/${i}`, depth)));
    for (const key of ["oneOf", "anyOf"])
      list(key).forEach((sub, i) => {
        const location = `${at}/${key}/${i}`;
        node.branches.push({ location, node: this.node(sub, location, depth) });
      });
    if (s.items && typeof s.items === "object") node.items.push(this.node(s.items, `${at}/items`, depth));
    list("prefixItems").forEach((sub, i) => node.items.push(this.node(sub, `${at}/prefixItems/${i}`, depth)));
  }

  /** Record what `value` reached of `node`. */
  walk(node: SchemaNode, value: unknown, sinks: WalkSinks, depth = 0): void {
    if (depth > MAX_DEPTH) return;
    sinks.schemas.add(node.pointer);
    if (node.enumValues !== undefined && isPrimitive(value)) {
      const location = node.enumValues.get(value);
      if (location !== undefined) sinks.enums.add(location);
    }
    for (const part of node.allOf) this.walk(part, value, sinks, depth + 1);
    for (const branch of node.branches) {
      if (!this.validator(branch.location)(value)) continue;
      sinks.branches.add(branch.location);
      this.walk(branch.node, value, sinks, depth + 1);
    }
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const items of node.items) for (const item of value) this.walk(items, item, sinks, depth + 1);
      return;
    }
    for (const member of node.members) {
      if (!Object.hasOwn(value, member.name)) continue;
      sinks.members.add(member.location);
      this.walk(member.node, (value as Record<string, unknown>)[member.name], sinks, depth + 1);
    }
  }

  /** Everything reachable from `roots`: the locations a walk could record, by sink. */
  reachable(roots: SchemaNode[]): { members: Set<string>; branches: Set<string>; enums: Set<string> } {
    const out = { members: new Set<string>(), branches: new Set<string>(), enums: new Set<string>() };
    const visited = new Set<SchemaNode>();
    const stack = [...roots];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (visited.has(node)) continue;
      visited.add(node);
      for (const location of node.enumLocations) out.enums.add(location);
      for (const m of node.members) {
        out.members.add(m.location);
        stack.push(m.node);
      }
      for (const b of node.branches) {
        out.branches.add(b.location);
        stack.push(b.node);
      }
      stack.push(...node.allOf, ...node.items);
    }
    return out;
  }
}
