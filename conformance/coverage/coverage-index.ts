// The coverage index of the bundled contracts, made at build time (generated/coverage-index.js, by
// `npm run build:conformance`): what a report counts of each contract and where its `x-gap`
// locations are. A run against that very contract (the same digest) reads them instead of working
// them out, which was most of what coverage added to a short run. Any other contract, and an index
// missing, unreadable or of another shape, is worked out from the contract as before.
import { contractDigest } from "../../src/contract/precompiled.js";
import type { Json } from "../../src/contract/json.js";
import { type CoverageKind, HTTP_KINDS, WEBHOOK_KINDS } from "./seen.js";

/** Which bundled contract an entry is of. */
export type IndexedFormat = "openapi" | "asyncapi";

/** One contract's entry, as the generated module holds it: sorted lists of locations (its gaps are the universe's). */
export interface CoverageIndexEntry {
  /** contractDigest of the contract it was made from. */
  sha256: string;
  universe: Partial<Record<CoverageKind, string[]>>;
}

/** One contract's entry, ready to use. */
export interface IndexedCoverage {
  gaps: ReadonlySet<string>;
  universe: ReadonlyMap<CoverageKind, ReadonlySet<string>>;
}

const KINDS: Record<IndexedFormat, readonly CoverageKind[]> = {
  openapi: HTTP_KINDS,
  asyncapi: WEBHOOK_KINDS,
};

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/** An entry of the generated module, if it has the shape this code reads; undefined otherwise. */
export function readIndexEntry(value: unknown, format: IndexedFormat): IndexedCoverage | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const { sha256, universe } = value as Partial<Record<keyof CoverageIndexEntry, unknown>>;
  if (typeof sha256 !== "string" || universe === null || typeof universe !== "object") return undefined;
  const kinds = new Map<CoverageKind, Set<string>>();
  for (const kind of KINDS[format]) {
    const locations = Object.hasOwn(universe, kind) ? (universe as Record<string, unknown>)[kind] : undefined;
    if (!isStrings(locations)) return undefined;
    kinds.set(kind, new Set(locations));
  }
  return { gaps: kinds.get("gaps") as Set<string>, universe: kinds };
}

/** The entries read, with the digest each was made from (none when the index could not be read). */
let loaded: Map<IndexedFormat, { sha256: string; entry: IndexedCoverage }> | undefined;
let loading: Promise<void> | undefined;

/**
 * Read the generated index, once per process; never fails (without it, coverage is worked out).
 * Until it is read, `indexedCoverage` finds nothing.
 */
export function loadCoverageIndex(): Promise<void> {
  loading ??= (async () => {
    const entries = new Map<IndexedFormat, { sha256: string; entry: IndexedCoverage }>();
    try {
      // Not a literal specifier: the file is JavaScript generated beside the sources, without types.
      const module = await import(new URL("../../generated/coverage-index.js", import.meta.url).href);
      for (const format of ["openapi", "asyncapi"] as const) {
        const entry = readIndexEntry(module[format], format);
        if (entry) entries.set(format, { sha256: module[format].sha256, entry });
      }
    } catch {
      // No index: every contract is worked out.
    }
    loaded = entries;
  })();
  return loading;
}

/** The index's entry of `document` when it was made from this very contract; undefined otherwise. */
export function indexedCoverage(document: Json, format: IndexedFormat): IndexedCoverage | undefined {
  const found = loaded?.get(format);
  if (!found || document === null || typeof document !== "object") return undefined;
  return found.sha256 === contractDigest(document) ? found.entry : undefined;
}

/** A copy of the index's universe of `document` (a report's universe is its own); undefined as above. */
export function indexedUniverse(
  document: Json,
  format: IndexedFormat,
): Map<CoverageKind, Set<string>> | undefined {
  const indexed = indexedCoverage(document, format);
  return indexed && new Map([...indexed.universe].map(([kind, locations]) => [kind, new Set(locations)]));
}
