import type { Json } from "./json.js";
import { unescapeToken } from "./json-pointer.js";

/** Follow local `$ref`s from a node of a bundled document, keeping track of where it really sits. */
export function resolveRef(document: Json, node: Json, pointer: string): { node: Json; pointer: string } {
  let current = { node, pointer };
  for (let hops = 0; typeof current.node?.$ref === "string" && hops < 32; hops++) {
    const ref: string = current.node.$ref;
    if (!ref.startsWith("#")) throw new Error(`external $ref ${ref}: bundle the contract first`);
    const target = ref
      .slice(2)
      .split("/")
      .map(unescapeToken)
      .reduce((n: Json, k) => ownMember(n, k), document);
    if (target === undefined) throw new Error(`$ref ${ref} points nowhere`);
    current = { node: target, pointer: ref.slice(1) };
  }
  return current;
}

/** A node's own member: a `$ref` is input too (`--spec`), and `#/__proto__` must not reach Object's. */
export function ownMember(node: Json, key: string): Json {
  return node !== null && typeof node === "object" && Object.hasOwn(node, key) ? node[key] : undefined;
}
