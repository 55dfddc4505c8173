import type { CheckName, FindingList, FindingLocation } from "../findings/findings.js";
import { pointerToken } from "../findings/redact.js";
import { unescapeToken } from "../../src/contract/json-pointer.js";
import { ownMember } from "../../src/contract/resolve-ref.js";

// Response schemas are open: the service may add members. Such members are not violations, but a
// reader wants to know about them, so they are warnings. A member is "described" when any branch of
// the schema (properties through allOf/oneOf/anyOf/if-then-else and $ref) names it.

// Schemas are walked structurally.
type Schema = any;

interface Shape {
  /** Member name → the shapes of that member in every branch that names it. */
  members: Map<string, Shape[]>;
  /** Any member is described: the schema says nothing about members, or allows any. */
  open: boolean;
  /** The schema itself allows any member (patternProperties, `additionalProperties: true`). */
  allowsAny: boolean;
  /** Shapes of members not named (additionalProperties schemas). */
  extra: Shape[];
  items: Shape[];
  /** Memo of the merged shape of each named member, of the extras and of the items, built on first use. */
  merged?: Map<string, Shape>;
  mergedExtra?: Shape | null;
  mergedItems?: Shape | null;
}

// Every shape is made with all its members, memos included: shapes of one layout keep the walk's
// member reads monomorphic, where memos added later gave each shape a layout of its own.
const FREE: Shape = {
  members: new Map(),
  open: true,
  allowsAny: true,
  extra: [],
  items: [],
  merged: undefined,
  mergedExtra: undefined,
  mergedItems: undefined,
};

const closedShape = (): Shape => ({
  members: new Map(),
  open: false,
  allowsAny: false,
  extra: [],
  items: [],
  merged: undefined,
  mergedExtra: undefined,
  mergedItems: undefined,
});

/** One shape describing what any of `shapes` describes. */
function union(shapes: Shape[]): Shape | null {
  if (shapes.length === 0) return null;
  if (shapes.length === 1) return shapes[0] as Shape;
  const out = closedShape();
  for (const s of shapes) {
    out.open ||= s.open;
    out.allowsAny ||= s.allowsAny;
    for (const [name, list] of s.members) out.members.set(name, [...(out.members.get(name) ?? []), ...list]);
    out.extra.push(...s.extra);
    out.items.push(...s.items);
  }
  return out;
}

function memberShape(shape: Shape, name: string): Shape | null {
  const named = shape.members.get(name);
  if (named) {
    shape.merged ??= new Map();
    let merged = shape.merged.get(name);
    if (merged === undefined) {
      merged = union(named) as Shape;
      shape.merged.set(name, merged);
    }
    return merged;
  }
  if (shape.mergedExtra === undefined) shape.mergedExtra = union(shape.extra);
  return shape.mergedExtra;
}

function itemShape(shape: Shape): Shape | null {
  if (shape.mergedItems === undefined) shape.mergedItems = union(shape.items);
  return shape.mergedItems;
}

/** Walks a document's schemas to find members an instance has but the schema does not describe. */
export class DescribedMembers {
  private readonly cache = new WeakMap<object, Shape>();
  private readonly roots = new WeakMap<object, Shape>();

  constructor(private readonly document: Schema) {}

  /** Warn about every member of `instance` that `schema` does not describe. */
  warnUndescribed(
    schema: Schema,
    instance: unknown,
    findings: FindingList,
    where: FindingLocation,
    check: CheckName = "response_body_schema",
  ): void {
    // Only objects and arrays have members to look at.
    if (instance === null || typeof instance !== "object") return;
    this.walk(this.rootShape(schema), instance, [], findings, where, check);
  }

  /** The shape of a media type's schema, kept per schema object: resolving `$ref`s allocates. */
  private rootShape(schema: Schema): Shape {
    if (schema === null || typeof schema !== "object") return this.shape(schema);
    let shape = this.roots.get(schema);
    if (shape === undefined) {
      shape = this.shape(schema);
      this.roots.set(schema, shape);
    }
    return shape;
  }

  // The path is a stack of keys turned into a pointer only when a warning is made: most walks make none.
  private walk(
    shape: Shape,
    value: unknown,
    path: (string | number)[],
    findings: FindingList,
    where: FindingLocation,
    check: CheckName,
  ): void {
    if (value === null || typeof value !== "object" || shape === FREE || path.length > 64) return;
    if (Array.isArray(value)) {
      const items = itemShape(shape);
      if (!items) return;
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        if (item === null || typeof item !== "object") continue;
        path.push(i);
        this.walk(items, item, path, findings, where, check);
        path.pop();
      }
      return;
    }
    for (const key in value) {
      const child = memberShape(shape, key);
      if (!child) {
        if (!shape.open) {
          const pointer = [...path, key].map((t) => `/${pointerToken(t)}`).join("");
          findings.warn(where, check, pointer, "member is not described by the contract");
        }
        continue;
      }
      const member = (value as Record<string, unknown>)[key];
      if (member === null || typeof member !== "object") continue;
      path.push(key);
      this.walk(child, member, path, findings, where, check);
      path.pop();
    }
  }

  private resolve(schema: Schema): Schema {
    let node = schema;
    for (
      let hops = 0;
      node && typeof node === "object" && typeof node.$ref === "string" && hops < 32;
      hops++
    ) {
      if (!node.$ref.startsWith("#/")) return true;
      const next = node.$ref
        .slice(2)
        .split("/")
        .map(unescapeToken)
        .reduce((n: Schema, k: string) => ownMember(n, k), this.document);
      // A $ref beside other keywords: the siblings still apply, so keep both.
      const { $ref: _, ...siblings } = node;
      node = Object.keys(siblings).length > 0 ? { allOf: [next, siblings] } : next;
    }
    return node;
  }

  private shape(raw: Schema): Shape {
    const schema = this.resolve(raw);
    if (schema === true || schema === undefined || schema === null) return FREE;
    if (schema === false || typeof schema !== "object") return closedShape();
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const shape = closedShape();
    // Set before recursing: recursive schemas then see the shape being built.
    this.cache.set(schema, shape);
    let objectFacts = false;
    if (schema.properties && typeof schema.properties === "object") {
      objectFacts = true;
      for (const [name, sub] of Object.entries(schema.properties)) {
        const list = shape.members.get(name) ?? [];
        list.push(this.shape(sub));
        shape.members.set(name, list);
      }
    }
    if (schema.patternProperties) shape.allowsAny = true;
    for (const key of ["additionalProperties", "unevaluatedProperties"]) {
      const extra = schema[key];
      if (extra === undefined || extra === false) continue;
      if (extra === true) shape.allowsAny = true;
      else shape.extra.push(this.shape(extra));
    }
    if (schema.items !== undefined && schema.items !== false) shape.items.push(this.shape(schema.items));
    for (const item of schema.prefixItems ?? []) shape.items.push(this.shape(item));
    const branches = [
      ...(schema.allOf ?? []),
      ...(schema.oneOf ?? []),
      ...(schema.anyOf ?? []),
      ...[schema.then, schema.else].filter((s) => s !== undefined),
    ];
    for (const branch of branches) {
      const sub = this.shape(branch);
      if (sub.members.size > 0 || sub.extra.length > 0) objectFacts = true;
      if (sub.allowsAny && sub !== FREE) shape.allowsAny = true;
      for (const [name, list] of sub.members)
        shape.members.set(name, [...(shape.members.get(name) ?? []), ...list]);
      shape.extra.push(...sub.extra);
      shape.items.push(...sub.items);
    }
    // A schema that says nothing about members (e.g. `{type: object}` alone) describes any member.
    shape.open = shape.allowsAny || !objectFacts;
    return shape;
  }
}
