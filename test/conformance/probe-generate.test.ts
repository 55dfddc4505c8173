// The generators' mechanism, on a fixture contract that uses each JSON Schema keyword they read
// once (fixtures/generate/contract.yaml): valid values accepted by the suite's request check and the
// servers' body check, broken ones refused by both for the rule they name and accepted again once
// that member is restored; boundaries, both branches of each conditional rule, non-ASCII letters
// counted as code points, leap days, nulls; the same seed making the same values.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { probeOperations } from "../../conformance/probe/contract-operations.js";
import { bodyArbitraries } from "../../conformance/probe/generate/index.js";
import { brokenArbitrary } from "../../conformance/probe/generate/broken.js";
import { valueArbitrary } from "../../conformance/probe/generate/values.js";
import { conditionOutcomes, isObject } from "../../conformance/probe/generate/schema-shape.js";
import { errorPath, KIND_KEYWORDS, oracleFor } from "./support/generate-oracle.js";

const document = parse(readFileSync(new URL("fixtures/generate/contract.yaml", import.meta.url), "utf8"));
const oracle = oracleFor(document);
const operations = new Map(probeOperations(document).map((op) => [op.operationId, op]));
const op = (id: string) => operations.get(id)!;
const RUNS = 300;
const sample = <T>(arb: fc.Arbitrary<T>, seed = 7) => fc.sample(arb, { numRuns: RUNS, seed });
const json = ["createThing", "replaceThing", "touchNote", "searchCode"];
const things = () =>
  sample(bodyArbitraries(document, op("createThing").body!, "probe-m").valid).map((g) => g.value as any);

/** A broken value with the member at its pointer put back as the valid value has it. */
function restored(broken: unknown, valid: unknown, pointer: string): unknown {
  if (pointer === "") return valid;
  const path = pointer.slice(1).split("/");
  const copy = structuredClone(broken) as any;
  let into = copy;
  let from = valid as any;
  for (const key of path.slice(0, -1)) [into, from] = [into[key], from[key]];
  const last = path[path.length - 1]!;
  if (Array.isArray(from)) return valid; // an array's item count changed: the array itself is the member
  if (Object.hasOwn(from, last)) into[last] = from[last];
  else delete into[last];
  return copy;
}

describe("valid values of each keyword", () => {
  it.each(json)("%s: every valid body is accepted by both judges", (id) => {
    for (const g of sample(bodyArbitraries(document, op(id).body!, "probe-m").valid))
      expect(oracle.judge(op(id), g.body), JSON.stringify(g.value)).toMatchObject({
        suite: [],
        server: undefined,
      });
  });

  it("reaches the boundaries of lengths, numbers and item counts", () => {
    const values = things();
    const names = values.map((v) => [...v.name].length);
    expect(names).toContain(2);
    expect(names).toContain(8);
    expect(values.map((v) => v.count)).toEqual(expect.arrayContaining([1, 10]));
    expect(values.map((v) => v.step)).toEqual(expect.arrayContaining([0, 100]));
    expect(values.filter((v) => v.tags).map((v) => v.tags.length)).toEqual(expect.arrayContaining([1, 3]));
    expect(values.every((v) => v.step === undefined || v.step % 5 === 0)).toBe(true);
  });

  it("writes non-ASCII letters often, and counts a length in code points", () => {
    const names: string[] = things().map((v) => v.name);
    expect(names.filter((n) => /[^ -~]/.test(n)).length).toBeGreaterThan(RUNS / 10);
    // An astral letter is two UTF-16 units and one code point: a name at maxLength may be longer in units.
    expect(names.some((n) => [...n].length === 8 && n.length > 8)).toBe(true);
  });

  it("generates optional members present and absent, nulls, and real dates with leap days", () => {
    const values = things();
    for (const name of ["ratio", "born", "note", "place", "version"]) {
      expect(
        values.some((v) => name in v),
        name,
      ).toBe(true);
      expect(
        values.some((v) => !(name in v)),
        name,
      ).toBe(true);
    }
    expect(values.some((v) => v.note === null)).toBe(true);
    expect(values.some((v) => v.born?.endsWith("-02-29"))).toBe(true);
    expect(values.some((v) => v.dob?.startsWith("29/02/"))).toBe(true);
    expect(values.every((v) => !v.dob || !/^(29\/02\/(1900|2001)|31\/04)/.test(v.dob))).toBe(true);
  });

  it("meets both branches of each conditional rule, and what each requires", () => {
    const schema = op("createThing").body!.schema;
    const outcomes = new Map();
    const values = things();
    for (const v of values) conditionOutcomes(document, schema, v, outcomes);
    expect(outcomes.size).toBe(2);
    for (const seen of outcomes.values()) expect(seen.held * seen.failed).toBeGreaterThan(0);
    for (const { person } of values) {
      expect(person.country === "AUS" ? "state" in person : "city" in person).toBe(true);
      if (person.doc_country === "NZL") expect(person).toHaveProperty("licence");
    }
  });

  it("tells oneOf alternatives apart, and takes each anyOf alternative", () => {
    const choices = sample(bodyArbitraries(document, op("replaceThing").body!, "m").valid).map(
      (g) => g.value as any,
    );
    expect(choices.some((c) => "alpha" in c) && choices.some((c) => "beta" in c)).toBe(true);
    expect(choices.every((c) => !("alpha" in c && "beta" in c))).toBe(true);
    const qs = sample(bodyArbitraries(document, op("searchCode").body!, "m").valid).map(
      (g) => (g.value as any).q,
    );
    expect(qs.some((q) => typeof q === "string") && qs.some((q) => typeof q === "number")).toBe(true);
  });

  it("marks every reference with the run's marker", () => {
    const refs = things().filter((v) => "reference" in v);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.every((v) => v.reference === "probe-m")).toBe(true);
  });
});

describe("broken values", () => {
  const expected: Record<string, string[]> = {
    createThing: Object.keys(KIND_KEYWORDS).filter((k) => k !== "maxProperties"),
    replaceThing: ["type", "required", "undescribed", "minLength"],
    touchNote: ["type"],
    searchCode: ["type", "required", "undescribed"],
  };

  it.each(json)(
    "%s: each breaks the rule its kind names, and is accepted with that member restored",
    (id) => {
      const schema = op(id).body!.schema;
      const kinds = new Set<string>();
      for (const b of sample(brokenArbitrary(document, schema, valueArbitrary(document, schema))!)) {
        kinds.add(b.kind);
        const errors = oracle.errors(op(id), b.value);
        const at = errorPath(b.kind, b.pointer);
        expect(
          errors.some((e) => KIND_KEYWORDS[b.kind]?.includes(e.keyword) && e.instancePath === at),
          `${b.kind} ${b.rule} ${JSON.stringify(errors)}`,
        ).toBe(true);
        const named = b.pointer !== "" && b.rule.includes(b.pointer);
        expect(named || b.rule.includes(at === "" ? "the body" : at), b.rule).toBe(true);
        expect(oracle.errors(op(id), restored(b.value, b.valid, b.pointer)), b.rule).toEqual([]);
      }
      expect([...kinds].sort()).toEqual(expect.arrayContaining(expected[id]!));
    },
  );

  it.each(json)("%s: every broken body is refused by both judges", (id) => {
    for (const b of sample(bodyArbitraries(document, op(id).body!, "probe-m").broken!)) {
      const verdict = oracle.judge(op(id), b.body);
      expect(verdict.refused, `${b.kind} ${b.rule} ${JSON.stringify(verdict)}`).toBe(true);
    }
  });

  it("breaks a conditional rule only while its `if` holds", () => {
    const schema = op("createThing").body!.schema;
    for (const b of sample(brokenArbitrary(document, schema, valueArbitrary(document, schema))!, 11)) {
      if (b.kind !== "country") continue;
      const person = (b.valid as any).person;
      if (b.pointer === "/person/state") expect(person.country).toBe("AUS");
      if (b.pointer === "/person/city") expect(person.country).not.toBe("AUS");
      if (b.pointer === "/person/licence") expect(person.doc_country).toBe("NZL");
    }
  });

  it("says the rule without the value", () => {
    for (const b of sample(bodyArbitraries(document, op("createThing").body!, "probe-m").broken!)) {
      expect(b.rule).toMatch(/^(the body|\/|required member|an undescribed member)/);
      for (const member of Object.values(isObject(b.value) ? b.value : {}))
        if (typeof member === "string" && member.length > 3) expect(b.rule).not.toContain(member);
    }
  });
});
