// Where a part of a bundled contract is written in its split sources (openapi/…yaml, asyncapi/…yaml):
// the table made at build time (generated/contract-sources.js, by `npm run build:conformance`), read
// only for a contract of the same digest; any other contract has no source lines, and gets none.
import { contractDigest } from "../../src/contract/precompiled.js";
import type { Json } from "../../src/contract/json.js";
import { unescapeToken } from "../../src/contract/json-pointer.js";

/** A place in a source file: the file relative to the repository root, and 1-based line and column. */
export interface SourceLine {
  uri: string;
  line: number;
  column: number;
  /** The bundle pointer it was found at, after the bundle's `$ref`s were followed. */
  pointer: string;
}

/** One contract's table: its digest, its source files, and each part's place in them. */
export interface SourceTable {
  sha256: string;
  files: string[];
  at: Readonly<Record<string, readonly [number, number, number]>>;
}

/** The most `$ref`s one pointer follows: more is a cycle, or a contract no report needs to follow. */
const MAX_REFS = 32;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const isPlace = (v: unknown): v is [number, number, number] =>
  Array.isArray(v) && v.length === 3 && v.every((n) => Number.isInteger(n) && n >= 0);

/** A table of the generated module, if it has the shape this code reads. */
export function readSourceTable(value: unknown): SourceTable | undefined {
  if (!isObject(value)) return undefined;
  const { sha256, files, at } = value;
  if (typeof sha256 !== "string" || !Array.isArray(files) || !isObject(at)) return undefined;
  if (!files.every((f) => typeof f === "string")) return undefined;
  return { sha256, files: files as string[], at: at as SourceTable["at"] };
}

let tables: Promise<Partial<Record<"openapi" | "asyncapi", SourceTable>>> | undefined;

/** The generated tables, read once per process; never fails (without them, no result has a source line). */
export function loadSourceTables(): Promise<Partial<Record<"openapi" | "asyncapi", SourceTable>>> {
  tables ??= (async () => {
    try {
      // Not a literal specifier: the file is JavaScript generated beside the sources, without types.
      const module = await import(new URL("../../generated/contract-sources.js", import.meta.url).href);
      return { openapi: readSourceTable(module.openapi), asyncapi: readSourceTable(module.asyncapi) };
    } catch {
      return {};
    }
  })();
  return tables;
}

/** The table of `document` when it was made from this very contract; undefined otherwise. */
export function tableOf(table: SourceTable | undefined, document: unknown): SourceTable | undefined {
  if (!table || document === null || typeof document !== "object") return undefined;
  return table.sha256 === contractDigest(document as Json) ? table : undefined;
}

/** The member `key` of a node, own members only (never a prototype's). */
function member(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return /^(0|[1-9]\d*)$/.test(key) ? node[Number(key)] : undefined;
  return isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}

/** A local `$ref` of a node (`#/components/…`), as a pointer; undefined when it has none. */
const localRef = (node: unknown): string | undefined =>
  isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/")
    ? node.$ref.slice(1)
    : undefined;

/** The node a pointer names in a document, undefined when none. */
export function nodeAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split("/").slice(1)) node = member(node, unescapeToken(raw));
  return node;
}

/**
 * The pointer where a part is written in the bundle itself: each `$ref` on the way (and at the end)
 * followed, as a reader would. Tokens the bundle does not hold are kept, for the nearest part to be found.
 */
export function physicalPointer(document: unknown, pointer: string): string {
  let at = "";
  let node = document;
  let refs = 0;
  for (const raw of pointer.split("/").slice(1)) {
    const key = unescapeToken(raw);
    let ref = localRef(node);
    while (ref !== undefined && member(node, key) === undefined && refs++ < MAX_REFS) {
      at = ref;
      node = nodeAt(document, ref);
      ref = localRef(node);
    }
    at = `${at}/${raw}`;
    node = member(node, key);
  }
  for (let ref = localRef(node); ref !== undefined && refs++ < MAX_REFS; ref = localRef(node)) {
    at = ref;
    node = nodeAt(document, ref);
  }
  return at;
}

/** Where a bundle pointer's part is written: the part itself, else the nearest enclosing one the table has. */
export function sourceLine(table: SourceTable, document: unknown, pointer: string): SourceLine | undefined {
  for (let at = physicalPointer(document, pointer); ; at = at.slice(0, at.lastIndexOf("/"))) {
    const place = Object.hasOwn(table.at, at) ? table.at[at] : undefined;
    const uri = isPlace(place) ? table.files[place[0]] : undefined;
    if (place && uri !== undefined)
      return { uri, line: Math.max(place[1], 1), column: Math.max(place[2], 1), pointer: at };
    if (at === "") return undefined;
  }
}
