// The benchmark's corpus, made without the suite: bodies from the schemas (seeded json-schema-faker) and
// the contract's examples, header names in the casings clients really send, absolute URLs with query
// strings, binary bodies as base64, and one of the mutations of corpus-mutations.ts in a third of the exchanges. Every
// label is made by construction and confirmed by the reference validator (corpus-reference.ts); samples
// it does not confirm are dropped and counted.
import { type PlainExchange, ReferenceValidator } from "./corpus-reference.js";
import { CorpusGenerator, type CorpusStats } from "./corpus-generator.js";
import { mutations } from "./corpus-mutations.js";
import type { Json } from "../src/contract/json.js";

export type { CorpusStats } from "./corpus-generator.js";

/** A corpus line and what it should get. */
export interface IndependentEntry {
  line: string;
  /** The mutation applied, or undefined for a valid exchange. */
  mutation?: string;
  operationId: string;
}

/** Build `size` labelled exchanges as NDJSON lines. */
export function buildIndependentCorpus(
  document: Json,
  size: number,
  seed = 14,
): { entries: IndependentEntry[]; stats: CorpusStats } {
  const g = new CorpusGenerator(document, seed);
  const { r, stats } = g;
  const reference = new ReferenceValidator(document);
  const MUTATIONS = mutations(g);
  const kinds = Object.keys(MUTATIONS);

  const entries: IndependentEntry[] = [];
  let attempts = 0;
  while (entries.length < size && attempts < size * 20) {
    attempts++;
    const o = g.pick(g.operations);
    let x: PlainExchange;
    try {
      x = g.exchange(o);
    } catch {
      stats.dropped.set(
        "valid (generation failed)",
        (stats.dropped.get("valid (generation failed)") ?? 0) + 1,
      );
      continue;
    }
    if (reference.judge(x) !== undefined) {
      stats.dropped.set("valid", (stats.dropped.get("valid") ?? 0) + 1);
      continue;
    }
    let mutation: string | undefined;
    if (r() < 1 / 3) {
      mutation = g.pick(kinds);
      if (!MUTATIONS[mutation]!(x, o)) continue;
      if (reference.judge(x) === undefined) {
        stats.dropped.set(mutation, (stats.dropped.get(mutation) ?? 0) + 1);
        continue;
      }
      stats.mutated.set(mutation, (stats.mutated.get(mutation) ?? 0) + 1);
    } else stats.valid++;
    entries.push({ line: toLine(x), mutation, operationId: o.op.operationId });
  }
  return { entries, stats };
}

/** Text bodies as text, others (files, bytes that are not UTF-8) as base64, headers as a HAR-style list. */
function body(bytes: Buffer | undefined): { body?: string; bodyEncoding?: string } {
  if (!bytes) return {};
  const text = bytes.toString("utf8");
  const isText = Buffer.from(text).equals(bytes) && !text.startsWith("%PDF") && !text.startsWith("--");
  return isText ? { body: text } : { body: bytes.toString("base64"), bodyEncoding: "base64" };
}

/** One NDJSON line of the corpus. */
function toLine(x: PlainExchange): string {
  const headers = (list: [string, string][]) => list.map(([name, value]) => ({ name, value }));
  return JSON.stringify({
    request: { method: x.method, url: x.url, headers: headers(x.requestHeaders), ...body(x.requestBody) },
    ...(x.status === undefined
      ? {}
      : { response: { status: x.status, headers: headers(x.responseHeaders), ...body(x.responseBody) } }),
  });
}
