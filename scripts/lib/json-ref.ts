import { unescapeToken } from "../../src/contract/json-pointer.js";
import type { Json } from "../../src/contract/json.js";
export type { Json } from "../../src/contract/json.js";

/** Follow a local `$ref` chain ("#/components/…") in a bundled document; other refs are errors. */
export function resolveRef(document: Json, node: Json, seen: string[] = []): Json {
  if (!node || typeof node !== "object" || typeof node.$ref !== "string") return node;
  const ref: string = node.$ref;
  if (!ref.startsWith("#"))
    throw new Error(`only local $refs can be shown, found "${ref}" (bundle the contract first)`);
  if (seen.includes(ref)) throw new Error(`$ref cycle: ${[...seen, ref].join(" → ")}`);
  const target = ref
    .slice(1)
    .split("/")
    .filter((token, index) => index > 0 || token !== "")
    .map((token) => unescapeToken(decodeURIComponent(token)))
    .reduce<Json>((at, token) => (at === undefined || at === null ? undefined : at[token]), document);
  if (target === undefined) throw new Error(`$ref "${ref}" points at nothing`);
  return resolveRef(document, target, [...seen, ref]);
}

/** The last token of a local `$ref`, the name a reader knows the component by. */
export function refName(node: Json): string | undefined {
  return typeof node?.$ref === "string" ? node.$ref.split("/").pop() : undefined;
}
