// The generators over the real contract: every operation with a body, its valid bodies accepted by the
// suite's request check and the servers' body check, its broken ones refused by both for the rule
// they name (and accepted again with that member restored); boundaries, both branches of every
// conditional rule, and leap days reached. Counts come from the contract, never written here.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bundledContract } from "../../conformance/checks/load-contract.js";
import { probeOperations } from "../../conformance/probe/contract-operations.js";
import { bodyArbitraries } from "../../conformance/probe/generate/index.js";
import { brokenArbitrary } from "../../conformance/probe/generate/broken.js";
import { valueArbitrary } from "../../conformance/probe/generate/values.js";
import {
  conditionOutcomes,
  deref,
  isObject,
  objectShape,
} from "../../conformance/probe/generate/schema-shape.js";
import { errorPath, KIND_KEYWORDS, oracleFor } from "./support/generate-oracle.js";
import type { Json } from "../../src/contract/json.js";

const document = bundledContract();
const oracle = oracleFor(document);
const withBody = probeOperations(document).filter((op) => op.body !== undefined);
const json = withBody.filter((op) => op.body?.mediaType === "application/json");
const RUNS = 200;
const MARK = "probe-run-0001";

/** Every schema reachable from a body's schema (members, items, alternatives), each once. */
function schemasOf(raw: Json, seen = new Set<Json>()): Json[] {
  const s = deref(document, raw);
  if (!isObject(s) || seen.has(s)) return [];
  seen.add(s);
  const next: Json[] = [
    ...[s.allOf, s.oneOf, s.anyOf].flatMap((l) => (Array.isArray(l) ? l : [])),
    ...(isObject(s.properties) ? Object.values(s.properties) : []),
    ...(s.items ? [s.items] : []),
  ];
  return [s, ...next.flatMap((n) => schemasOf(n, seen))];
}

/** The values of a JSON value at every member name (`first_name` → its values anywhere). */
function valuesNamed(value: unknown, name: string, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) valuesNamed(v, name, out);
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) {
      if (k === name) out.push(v);
      valuesNamed(v, name, out);
    }
  return out;
}

/** The names of string members with a maxLength, and of date members (format date, or a date pattern). */
function members(raw: Json) {
  const maxLength = new Map<string, number>();
  const dates = new Set<string>();
  const emails = new Set<string>();
  for (const s of schemasOf(raw))
    for (const [name, list] of objectShape(document, s).properties)
      for (const m of list) {
        if (typeof m?.maxLength === "number") maxLength.set(name, m.maxLength);
        if (m?.format === "email" || deref(document, m?.items ?? {})?.format === "email") emails.add(name);
        if (
          m?.format === "date" ||
          (typeof m?.pattern === "string" && new RegExp(m.pattern, "u").test("14/03/1985"))
        )
          dates.add(name);
      }
  return { maxLength, dates, emails };
}

/** The kinds of break a body's schema offers, from the keywords its schemas use. */
function expectedKinds(raw: Json): Set<string> {
  const kinds = new Set(["type"]);
  const keyword: [string, string][] = [
    ["maxLength", "maxLength"],
    ["pattern", "pattern"],
    ["enum", "enum"],
    ["format", "format"],
    ["minProperties", "minProperties"],
  ];
  for (const s of schemasOf(raw)) {
    for (const [k, kind] of keyword)
      if (s[k] !== undefined && !(k === "format" && s.format === "binary")) kinds.add(kind);
    if (
      s.format === "date" ||
      (typeof s.pattern === "string" && new RegExp(s.pattern, "u").test("14/03/1985"))
    )
      kinds.add("date");
    const shape = objectShape(document, s);
    if (shape.required.size > 0) kinds.add("required");
    if (shape.closed && shape.maxProperties > 0) kinds.add("undescribed");
    if (shape.conditions.length > 0) kinds.add("country");
  }
  return kinds;
}

const sample = <T>(arb: fc.Arbitrary<T>, seed = 46) => fc.sample(arb, { numRuns: RUNS, seed });

describe("valid bodies of the contract's operations", () => {
  it("has operations with a body to generate for", () => {
    expect(withBody.length).toBeGreaterThan(0);
    expect(withBody.some((op) => op.body?.mediaType === "multipart/form-data")).toBe(true);
  });

  it.each(withBody.map((op) => [op.operationId, op] as const))(
    "%s: every valid body is accepted",
    (_, op) => {
      const { valid } = bodyArbitraries(document, op.body!, MARK);
      for (const generated of sample(valid)) {
        const verdict = oracle.judge(op, generated.body);
        expect(verdict, JSON.stringify(generated.value)).toMatchObject({ suite: [], server: undefined });
      }
    },
  );

  it.each(json.map((op) => [op.operationId, op] as const))(
    "%s: reaches each maxLength, and a 29 February",
    (_, op) => {
      const values = sample(bodyArbitraries(document, op.body!, MARK).valid).map((g) => g.value);
      const { maxLength, dates } = members(op.body!.schema);
      for (const [name, max] of maxLength) {
        const lengths = values.flatMap((v) => valuesNamed(v, name)).map((s) => [...String(s)].length);
        expect(lengths, name).toContain(max);
      }
      for (const name of dates) {
        const days = values.flatMap((v) => valuesNamed(v, name)).map(String);
        expect(
          days.some((d) => /^(29\/02\/\d{4}|\d{4}-02-29)$/.test(d)),
          name,
        ).toBe(true);
      }
    },
  );

  it.each(json.map((op) => [op.operationId, op] as const))(
    "%s: keeps the document's own rules: real days, deliverable e-mails",
    (_, op) => {
      const values = sample(bodyArbitraries(document, op.body!, MARK).valid).map((g) => g.value);
      const { dates, emails } = members(op.body!.schema);
      for (const day of [...dates]
        .flatMap((name) => values.flatMap((v) => valuesNamed(v, name)))
        .map(String)) {
        const [y, m, d] = day.includes("/")
          ? day.split("/").reverse().map(Number)
          : day.split("-").map(Number);
        const back = new Date(0);
        back.setUTCFullYear(y!, m! - 1, d!); // years below 100 too, which Date.UTC reads as 19xx
        expect([back.getUTCFullYear(), back.getUTCMonth() + 1, back.getUTCDate()], day).toEqual([y, m, d]);
      }
      // The x-gap's rule: a dot-atom local part, a domain of two or more DNS labels.
      const atom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
      const label = "[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?";
      const mailbox = new RegExp(`^${atom}(\\.${atom})*@${label}(\\.${label})+$`);
      for (const name of emails)
        for (const e of values.flatMap((v) => valuesNamed(v, name)).flat())
          expect(String(e)).toMatch(mailbox);
    },
  );

  it.each(json.map((op) => [op.operationId, op] as const))(
    "%s: both branches of each conditional rule",
    (_, op) => {
      const ifs = schemasOf(op.body!.schema).flatMap((s) =>
        objectShape(document, s).conditions.map((c) => c.if),
      );
      const outcomes = new Map<Json, { held: number; failed: number }>();
      for (const g of sample(bodyArbitraries(document, op.body!, MARK).valid))
        conditionOutcomes(document, op.body!.schema, g.value, outcomes);
      for (const condition of new Set(ifs)) {
        const seen = outcomes.get(condition);
        expect(seen?.held, JSON.stringify(condition)).toBeGreaterThan(0);
        expect(seen?.failed, JSON.stringify(condition)).toBeGreaterThan(0);
      }
    },
  );
});

describe("broken bodies of the contract's operations", () => {
  it.each(withBody.map((op) => [op.operationId, op] as const))(
    "%s: every broken body is refused by both",
    (_, op) => {
      const { broken } = bodyArbitraries(document, op.body!, MARK);
      expect(broken).toBeDefined();
      for (const b of sample(broken!)) {
        const verdict = oracle.judge(op, b.body);
        expect(verdict.refused, `${b.kind} ${b.rule} ${JSON.stringify(verdict)}`).toBe(true);
        expect(b.rule).not.toContain(MARK);
      }
    },
  );

  it.each(json.map((op) => [op.operationId, op] as const))(
    "%s: breaks the rule its kind names, and only that member",
    (_, op) => {
      const schema = op.body!.schema;
      const broken = brokenArbitrary(document, schema, valueArbitrary(document, schema))!;
      const kinds = new Set<string>();
      for (const b of sample(broken)) {
        kinds.add(b.kind);
        const errors = oracle.errors(op, b.value);
        const at = errorPath(b.kind, b.pointer);
        const named = errors.filter(
          (e) => KIND_KEYWORDS[b.kind]?.includes(e.keyword) && e.instancePath === at,
        );
        expect(named.length, `${b.kind} ${b.rule}: ${JSON.stringify(errors)}`).toBeGreaterThan(0);
        expect(oracle.errors(op, b.valid), b.rule).toEqual([]);
      }
      expect([...kinds].sort()).toEqual([...expectedKinds(schema)].sort());
    },
  );
});
