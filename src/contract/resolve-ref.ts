import type { Json } from "./json.js";
import { unescapeToken } from "./json-pointer.js";

/** A `$ref` that cannot be followed: one outside the document, or one that points at nothing in it. */
export class UnresolvedRefError extends Error {
  constructor(
    readonly ref: string,
    readonly reason: "external" | "dangling",
    /** Where in the contract the `$ref` was met (`GET /x response 200`), when the reader knows it. */
    readonly where?: string,
  ) {
    super(
      reason === "external"
        ? `external $ref ${ref}: bundle the contract first`
        : `$ref ${ref} points nowhere`,
    );
  }
}

/** Follow local `$ref`s from a node of a bundled document, keeping track of where it really sits. */
export function resolveRef(document: Json, node: Json, pointer: string): { node: Json; pointer: string } {
  let current = { node, pointer };
  for (let hops = 0; typeof current.node?.$ref === "string" && hops < 32; hops++) {
    const ref: string = current.node.$ref;
    if (!ref.startsWith("#")) throw new UnresolvedRefError(ref, "external");
    const target = ref
      .slice(2)
      .split("/")
      .map(unescapeToken)
      .reduce((n: Json, k) => ownMember(n, k), document);
    if (target === undefined) throw new UnresolvedRefError(ref, "dangling");
    current = { node: target, pointer: ref.slice(1) };
  }
  return current;
}

/** A node's own member: a `$ref` is input too (`--spec`), and `#/__proto__` must not reach Object's. */
export function ownMember(node: Json, key: string): Json {
  return node !== null && typeof node === "object" && Object.hasOwn(node, key) ? node[key] : undefined;
}
