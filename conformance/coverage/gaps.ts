// The `x-gap` locations of a contract: where the interface document was silent and the contract
// chose. A report counts those traffic can reach (operations and components, or channels).
import { escapeToken } from "../../src/contract/json-pointer.js";
import type { Json } from "../../src/contract/json.js";
import { indexedCoverage } from "./coverage-index.js";

/** The deepest the contract is searched for `x-gap`. */
const MAX_GAP_DEPTH = 64;

/**
 * Down to this depth (a path, an operation; a kind of component, a component), a part whose JSON holds no
 * `"x-gap"` is not walked: about half the contract, found by the engine's own serializer. Walked key by
 * key, the whole contract was enough work for the JIT to compile the walk, which cost more than the walk.
 */
const PRUNED_DEPTH = 2;

/** Whether a part's JSON names `x-gap` anywhere (a key always does; a string may too: it is then walked). */
function mayHoldGap(part: Json): boolean {
  try {
    return JSON.stringify(part).includes('"x-gap"');
  } catch {
    // Not JSON (a cycle, a BigInt): walked as before, key by key, to the depth bound.
    return true;
  }
}

/** The gaps of each document, found once (the run's hooks and its report both need them). */
const found = new WeakMap<object, Set<string>>();

/** Every object under the document's `roots` members that carries `x-gap`. */
function gapLocations(document: Json, roots: string[]): Set<string> {
  const known = document && typeof document === "object" ? found.get(document) : undefined;
  if (known) return known;
  const out = new Set<string>();
  // The keys on the way down: a pointer is spelled only for the few objects that carry a gap (the
  // search runs when a run with coverage opens, over the whole contract).
  const path: string[] = [];
  const visit = (node: Json, depth: number) => {
    if (!Array.isArray(node) && Object.hasOwn(node, "x-gap")) out.add(`/${path.map(escapeToken).join("/")}`);
    if (depth === MAX_GAP_DEPTH) return;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (key === "x-gap" || child === null || typeof child !== "object") continue;
      if (depth < PRUNED_DEPTH && !mayHoldGap(child)) continue;
      path.push(key);
      visit(child, depth + 1);
      path.pop();
    }
  };
  for (const root of roots)
    if (document && typeof document === "object" && Object.hasOwn(document, root)) {
      const node = document[root];
      if (node === null || typeof node !== "object") continue;
      path.push(root);
      visit(node, 0);
      path.pop();
    }
  if (document && typeof document === "object") found.set(document, out);
  return out;
}

/** The gaps of an OpenAPI contract that exchanges can touch, searched for. */
export const searchHttpGaps = (document: Json): Set<string> =>
  gapLocations(document, ["paths", "components"]);

/** The gaps of an AsyncAPI contract that deliveries can touch, searched for. */
export const searchWebhookGaps = (document: Json): Set<string> =>
  gapLocations(document, ["channels", "operations", "components"]);

/** The gaps of an OpenAPI contract that exchanges can touch: from the build-time index when it is of this contract. */
export const httpGapLocations = (document: Json): ReadonlySet<string> =>
  indexedCoverage(document, "openapi")?.gaps ?? searchHttpGaps(document);

/** The gaps of an AsyncAPI contract that deliveries can touch: from the build-time index when it is of this contract. */
export const webhookGapLocations = (document: Json): ReadonlySet<string> =>
  indexedCoverage(document, "asyncapi")?.gaps ?? searchWebhookGaps(document);
