// The coverage walk of a value through its schema: which members were present, which oneOf/anyOf
// branches it took and which enum values it had, each as the contract location that describes it,
// and the `x-gap` locations it passed through. The same nodes give the universe of a report
// (everything reachable from a root), so what the walk can mark and what a report counts are one set.
import { escapeToken, unescapeToken } from "../../src/contract/json-pointer.js";
import { ownMember, resolveRef } from "../../src/contract/resolve-ref.js";
import { type BranchFacts, branchFacts, fits } from "./branch-fit.js";
import type { Json } from "../../src/contract/json.js";

/** The deepest a value is walked: deeper members are not counted (recursion over input is bounded). */
const MAX_DEPTH = 64;
/** How many levels below a node the check of whether it is done looks at children not yet marked. */
const DONE_LOOKAHEAD = 4;

/** One schema, `$ref`s followed, with what the walk needs of it. */
export interface SchemaNode {
  pointer: string;
  /** Named members: name, location (`…/properties/name`), schema, and per side the epoch it was last recorded in. */
  members: { name: string; location: string; node: SchemaNode; marks: number[] }[];
  /** Enum values of a primitive type → the location of the value in `enum`. */
  enumValues: Map<unknown, string> | undefined;
  /** Every `enum` location, primitive or not (the universe). */
  enumLocations: string[];
  allOf: SchemaNode[];
  /** oneOf/anyOf branches: location (`…/oneOf/1`), schema, and what a value taking it must have. */
  branches: { location: string; node: SchemaNode; facts: BranchFacts }[];
  items: SchemaNode[];
  /** The `x-gap` locations at or above this schema: a value walked through it touches them. */
  gaps: string[];
  /** Per side of a walk, the epoch in which everything below this node was seen (0: not yet). */
  done: number[];
  /** How often the node was walked: every so often, whether it is done is looked at. */
  visits: number;
  /** Nothing to record below the node: done from the start. */
  empty: boolean;
}

/** Where a walk records what it reached. */
export interface WalkSinks {
  /** Which side of the exchange (request 0, response 1): members are counted per side. */
  side: number;
  /** Changes whenever the sets are emptied (a worker's file posted): what was done is then to do again. */
  epoch: () => number;
  members: Set<string>;
  branches: Set<string>;
  enums: Set<string>;
  gaps: Set<string>;
}

// Most tokens have nothing to escape: the test costs less than the two replacements.
const escaped = (key: string): string => (key.includes("~") || key.includes("/") ? escapeToken(key) : key);
const unescaped = (token: string): string => (token.includes("~") ? unescapeToken(token) : token);

const isPrimitive = (v: unknown) => v === null || (typeof v !== "object" && typeof v !== "function");

/** The schema nodes of one document, built once per location. */
export class SchemaWalker {
  private readonly nodes = new Map<string, SchemaNode>();

  /** @param gapLocations every location of the document that carries `x-gap` */
  constructor(
    private readonly document: Json,
    private readonly gapLocations: ReadonlySet<string> = new Set(),
  ) {
    this.gapLengths = new Set([...gapLocations].map((gap) => gap.length));
  }

  private readonly gapsMemo = new Map<string, string[]>();
  /** The lengths of the gap locations: a prefix of another length cannot be one. */
  private readonly gapLengths: ReadonlySet<number>;

  /**
   * The `x-gap` locations at or above a location, outermost first; remembered per location (the
   * lists are shared: never changed).
   */
  gapsAt(pointer: string): string[] {
    const known = this.gapsMemo.get(pointer);
    if (known !== undefined) return known;
    // One pass over the pointer's own prefixes, cut only at the lengths some gap has: a pointer may
    // come from a `$ref` of any length, and keeping each of its prefixes would cost its length squared.
    const found: string[] = [];
    if (this.gapLengths.size > 0)
      for (let cut = pointer.indexOf("/", 1); ; cut = pointer.indexOf("/", cut + 1)) {
        const end = cut === -1 ? pointer.length : cut;
        if (this.gapLengths.has(end)) {
          const at = pointer.slice(0, end);
          if (this.gapLocations.has(at)) found.push(at);
        }
        if (cut === -1) break;
      }
    this.gapsMemo.set(pointer, found);
    return found;
  }

  /** The node of the schema at `pointer` in the document. */
  at(pointer: string): SchemaNode {
    const schema = pointer
      .slice(1)
      .split("/")
      .map(unescaped)
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
      gaps: this.gapsAt(resolved.pointer),
      done: [0, 0],
      visits: 0,
      empty: false,
    };
    // Kept before its parts are built: a recursive schema then meets this node again.
    this.nodes.set(resolved.pointer, node);
    const s = resolved.node;
    if (s === null || typeof s !== "object" || depth > MAX_DEPTH) return node;
    this.fill(node, s, resolved.pointer, depth + 1);
    node.empty =
      node.gaps.length + node.members.length + node.enumLocations.length + node.branches.length === 0 &&
      node.allOf.length + node.items.length === 0;
    return node;
  }

  private fill(node: SchemaNode, s: Json, at: string, depth: number): void {
    const properties = ownMember(s, "properties");
    if (properties && typeof properties === "object")
      for (const name of Object.keys(properties)) {
        const location = `${at}/properties/${escaped(name)}`;
        const member = { name, location, node: this.node(properties[name], location, depth), marks: [0, 0] };
        node.members.push(member);
      }
    if (Array.isArray(s.enum)) {
      const values = new Map<unknown, string>();
      s.enum.forEach((value: unknown, i: number) => {
        node.enumLocations.push(`${at}/enum/${i}`);
        if (isPrimitive(value) && !values.has(value)) values.set(value, `${at}/enum/${i}`);
      });
      node.enumValues = values;
    }
    const list = (key: string): Json[] => (Array.isArray(s[key]) ? s[key] : []);
    list("allOf").forEach((sub, i) => node.allOf.push(this.node(sub, `${at}/allOf/${i}`, depth)));
    for (const key of ["oneOf", "anyOf"])
      list(key).forEach((sub, i) => {
        const location = `${at}/${key}/${i}`;
        const facts = branchFacts(this.document, sub);
        node.branches.push({ location, node: this.node(sub, location, depth), facts });
      });
    if (s.items && typeof s.items === "object") node.items.push(this.node(s.items, `${at}/items`, depth));
    list("prefixItems").forEach((sub, i) => node.items.push(this.node(sub, `${at}/prefixItems/${i}`, depth)));
  }

  /** Record what `value` reached of `node`. */
  walk(node: SchemaNode, value: unknown, sinks: WalkSinks, depth = 0): void {
    // A node all of whose locations were seen has nothing more to record: most walks of a large
    // corpus end here, which keeps coverage within a tenth of the check's own time.
    const epoch = sinks.epoch();
    if (depth <= MAX_DEPTH && node.done[sinks.side] !== epoch) this.visit(node, value, sinks, epoch, depth);
  }

  /**
   * One node not done yet. The epoch is read once per walk, and a child is looked at before it is
   * called: a run is mostly done children, and most of it runs before the JIT has compiled the walk.
   */
  private visit(node: SchemaNode, value: unknown, sinks: WalkSinks, epoch: number, depth: number): void {
    const side = sinks.side;
    if ((++node.visits & 15) === 0 && this.isDone(node, sinks)) {
      node.done[side] = epoch;
      return;
    }
    const next = depth + 1;
    // Past the depth bound, what this node holds is still recorded, but nothing below it is walked.
    const deeper = next <= MAX_DEPTH;
    const { gaps, allOf, branches } = node;
    for (let i = 0; i < gaps.length; i++) sinks.gaps.add(gaps[i] as string);
    if (node.enumValues !== undefined && isPrimitive(value)) {
      const location = node.enumValues.get(value);
      if (location !== undefined) sinks.enums.add(location);
    }
    for (let i = 0; i < allOf.length && deeper; i++) {
      const part = allOf[i] as SchemaNode;
      if (part.done[side] !== epoch) this.visit(part, value, sinks, epoch, next);
    }
    for (let i = 0; i < branches.length; i++) {
      const branch = branches[i] as SchemaNode["branches"][number];
      if (!fits(branch.facts, value)) continue;
      sinks.branches.add(branch.location);
      if (deeper && branch.node.done[side] !== epoch) this.visit(branch.node, value, sinks, epoch, next);
    }
    if (value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (let i = 0; i < node.items.length && deeper; i++) {
        const items = node.items[i] as SchemaNode;
        // Done can only come once in an epoch: the rest of the array has nothing more for it.
        for (let j = 0; j < value.length && items.done[side] !== epoch; j++)
          this.visit(items, value[j], sinks, epoch, next);
      }
      return;
    }
    const members = node.members;
    for (let i = 0; i < members.length; i++) {
      const member = members[i] as SchemaNode["members"][number];
      if (!Object.hasOwn(value, member.name)) continue;
      // Marked on the member, so that a member met again costs no lookup in the set.
      if (member.marks[side] !== epoch) {
        member.marks[side] = epoch;
        sinks.members.add(member.location);
      }
      if (deeper && member.node.done[side] !== epoch)
        this.visit(member.node, (value as Record<string, unknown>)[member.name], sinks, epoch, next);
    }
  }

  /**
   * Whether everything below a node was seen. A child not marked done yet is looked at too, a few levels
   * down (a child met rarely would otherwise keep its parents from ever being done), and marked when it is.
   */
  private isDone(node: SchemaNode, sinks: WalkSinks, depth = 0): boolean {
    const epoch = sinks.epoch();
    const childDone = (child: SchemaNode): boolean => {
      if (child.empty || child.done[sinks.side] === epoch) return true;
      if (depth >= DONE_LOOKAHEAD || !this.isDone(child, sinks, depth + 1)) return false;
      child.done[sinks.side] = epoch;
      return true;
    };
    if (node.enumValues !== undefined && node.enumValues.size !== node.enumLocations.length) return false;
    return (
      node.gaps.every((g) => sinks.gaps.has(g)) &&
      node.enumLocations.every((l) => sinks.enums.has(l)) &&
      node.branches.every((b) => sinks.branches.has(b.location) && childDone(b.node)) &&
      node.members.every((m) => sinks.members.has(m.location) && childDone(m.node)) &&
      node.allOf.every(childDone) &&
      node.items.every(childDone)
    );
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
