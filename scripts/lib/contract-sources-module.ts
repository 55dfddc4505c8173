// generated/contract-sources.js: where each part of a bundled contract is written in the split,
// hand-authored sources (openapi/…yaml, asyncapi/…yaml), so that a SARIF report can place a finding
// on the contract's own line. Worked out here, at build time, with the `yaml` package (a
// devDependency: what users run reads only the table). The bundle and its sources are walked side by
// side: a source `$ref` to another file is followed where the bundle inlined it, and where the bundle
// kept a `$ref` (`#/components/schemas/X`) the referenced file is walked from that component.
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { Json } from "../../src/contract/json.js";
import { contractDigest } from "../../src/contract/precompiled.js";
import { commentHeader } from "./generated-header.js";
import { fromRoot, ROOT } from "./paths.js";

/** One contract's entry: its digest, its source files, and each collection's place in them. */
export interface ContractSourcesEntry {
  sha256: string;
  /** Source files, relative to the repository root, `/`-separated. */
  files: string[];
  /** Bundle pointer → [index into files, line, column] (1-based) of the member or item written there. */
  at: Record<string, [number, number, number]>;
}

interface SourceFile {
  name: string;
  root: Node | null;
  lines: LineCounter;
}

/** A JSON pointer token: `~` and `/` escaped (RFC 6901). */
const token = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

const isObject = (v: Json): v is Record<string, Json> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The walk of one bundle against its sources. */
class SourceWalk {
  private readonly files = new Map<string, SourceFile>();
  readonly names: string[] = [];
  readonly at: Record<string, [number, number, number]> = {};
  /** Bundle `$ref` targets still to walk, with the source node (and file) the bundle took them from. */
  private readonly pending = new Map<string, { file: SourceFile; node: Node | null }>();

  constructor(private readonly bundle: Json) {}

  file(path: string): SourceFile {
    let found = this.files.get(path);
    if (!found) {
      const lines = new LineCounter();
      const doc = parseDocument(readFileSync(path, "utf8"), { lineCounter: lines });
      found = { name: relative(ROOT, path).split("\\").join("/"), root: doc.contents as Node | null, lines };
      this.files.set(path, found);
      this.names.push(found.name);
    }
    return found;
  }

  /** Walk the whole bundle from its root source file, then every component the bundle refers to. */
  run(rootFile: string): void {
    const root = this.file(fromRoot(rootFile));
    this.walk(this.bundle, "", root, root.root, 0);
    for (const [pointer, from] of this.pending) {
      if (this.at[pointer]) continue;
      const node = this.node(pointer);
      if (node !== undefined) this.walk(node, pointer, from.file, from.node, 0);
    }
  }

  private node(pointer: string): Json | undefined {
    let node: Json | undefined = this.bundle;
    for (const raw of pointer.split("/").slice(1)) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      node =
        isObject(node) && Object.hasOwn(node, key)
          ? node[key]
          : Array.isArray(node)
            ? node[Number(key)]
            : undefined;
    }
    return node;
  }

  private record(pointer: string, file: SourceFile, offset: number): void {
    const { line, col } = file.lines.linePos(offset);
    this.at[pointer] ??= [this.names.indexOf(file.name), Math.max(line, 1), Math.max(col, 1)];
  }

  /** A source node's `$ref` to another file, followed (to that file's root or the pointer it names). */
  private follow(file: SourceFile, node: Node | null): { file: SourceFile; node: Node | null } {
    for (let hops = 0; hops < 16 && isMap(node); hops++) {
      const ref = node.get("$ref");
      if (typeof ref !== "string" || ref.startsWith("#")) break;
      const [path = "", fragment = ""] = ref.split("#");
      file = this.file(join(dirname(fromRoot(file.name)), path));
      node = file.root;
      for (const raw of fragment.split("/").slice(1)) {
        const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        node = isMap(node) || isSeq(node) ? ((node.get(key, true) as Node | undefined) ?? null) : null;
      }
    }
    return { file, node };
  }

  /** Record where `bundle` (at `pointer`) is written, and walk its members beside the source's. */
  private walk(bundle: Json, pointer: string, file: SourceFile, source: Node | null, offset: number): void {
    const followed = this.follow(file, source);
    // Inlined from another file: the part is written there, from its first line.
    const here = followed.file === file ? offset : (followed.node?.range?.[0] ?? 0);
    this.record(pointer, followed.file, here);
    ({ file, node: source } = followed);
    if (isObject(bundle) && typeof bundle.$ref === "string" && bundle.$ref.startsWith("#/")) {
      // The bundle kept a reference: the referenced part is walked from its own pointer.
      if (!this.pending.has(bundle.$ref.slice(1)))
        this.pending.set(bundle.$ref.slice(1), { file, node: source });
      return;
    }
    if (isObject(bundle) && isMap(source)) {
      for (const pair of source.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined || !Object.hasOwn(bundle, key)) continue;
        const value = bundle[key] as Json;
        if (value === null || typeof value !== "object") continue;
        // Examples are data, never a rule a finding breaks: their members are not listed.
        if (key === "example" || key === "examples" || key.startsWith("x-")) continue;
        const keyOffset = (pair.key as Node).range?.[0] ?? here;
        this.walk(value, `${pointer}/${token(key)}`, file, (pair.value as Node | null) ?? null, keyOffset);
      }
    } else if (Array.isArray(bundle) && isSeq(source)) {
      source.items.forEach((item, i) => {
        const value = bundle[i];
        if (value === null || typeof value !== "object" || value === undefined) return;
        const node = item as Node;
        this.walk(value, `${pointer}/${i}`, file, node, node.range?.[0] ?? here);
      });
    }
  }
}

/** The entry of one bundle made from its root source file (relative to the repository root). */
export function contractSources(bundle: Json, rootFile: string): ContractSourcesEntry {
  const walk = new SourceWalk(bundle);
  walk.run(rootFile);
  const at = Object.fromEntries(Object.entries(walk.at).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { sha256: contractDigest(bundle), files: walk.names, at };
}

/** The module text: an entry for the OpenAPI contract and one for the AsyncAPI contract. */
export function buildContractSourcesModule(openapi: Json, asyncapi: Json, source: string): string {
  const entry = (e: ContractSourcesEntry) =>
    `{\n "sha256": ${JSON.stringify(e.sha256)},\n "files": ${JSON.stringify(e.files)},\n "at": {\n${Object.entries(
      e.at,
    )
      .map(([p, l]) => `  ${JSON.stringify(p)}: ${JSON.stringify(l)}`)
      .join(",\n")}\n }\n}`;
  return `${commentHeader("//", source, "npm run build:conformance")}
export const openapi = ${entry(contractSources(openapi, "openapi/openapi.yaml"))};
export const asyncapi = ${entry(contractSources(asyncapi, "asyncapi/asyncapi.yaml"))};
`;
}
