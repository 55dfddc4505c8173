import { describe, expect, it } from "vitest";
import {
  deref,
  type Json,
  loadOpenApi,
  operations,
  pointerToken,
  validatorsFor,
} from "../support/contract.js";

const doc = loadOpenApi();
const validator = validatorsFor(doc);

interface ExampleCase {
  key: string;
  where: string;
  schemaPointer: string;
  value: unknown;
}

/** The pointer of a node that may be a `$ref`: the target's, so that shared responses are checked once. */
function located(node: Json, pointer: string): [Json, string] {
  if (node?.$ref) return [deref(doc, node), String(node.$ref).replace(/^#/, "")];
  return [node, pointer];
}

function mediaExamples(content: Json, pointer: string, where: string): ExampleCase[] {
  const out: ExampleCase[] = [];
  for (const [type, media] of Object.entries<Json>(content ?? {})) {
    const mediaPointer = `${pointer}/content/${pointerToken(type)}`;
    for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
      out.push({
        key: `${mediaPointer}/examples/${pointerToken(name)}`,
        where: `${where} ${type} example "${name}"`,
        schemaPointer: `${mediaPointer}/schema`,
        value: deref(doc, example).value,
      });
    }
  }
  return out;
}

function allExamples(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const { method, path, pointer, op } of operations(doc)) {
    const name = `${method.toUpperCase()} ${path}`;
    if (op.requestBody) {
      const [body, at] = located(op.requestBody, `${pointer}/requestBody`);
      cases.push(...mediaExamples(body.content, at, `${name} request`));
    }
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      const [res, at] = located(response, `${pointer}/responses/${status}`);
      cases.push(...mediaExamples(res.content, at, `${name} ${status}`));
    }
  }
  // Shared responses are checked once, whichever operation uses them first.
  return [...new Map(cases.map((c) => [c.key, c])).values()];
}

describe("every example validates against its schema", () => {
  const cases = allExamples();

  it("finds a request example and a response example for every operation", () => {
    for (const { method, path, op } of operations(doc)) {
      const name = `${method.toUpperCase()} ${path}`;
      if (op.requestBody) {
        const body = deref(doc, op.requestBody);
        const count = Object.values<Json>(body.content).reduce(
          (n, m) => n + Object.keys(m.examples ?? {}).length,
          0,
        );
        expect(count, `${name} has no request example`).toBeGreaterThan(0);
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const res = deref(doc, response);
        for (const [type, media] of Object.entries<Json>(res.content ?? {})) {
          expect(
            Object.keys(media.examples ?? {}).length,
            `${name} ${status} ${type} has no example`,
          ).toBeGreaterThan(0);
        }
      }
    }
  });

  it.each(cases.map((c) => [c.where, c] as const))("%s", (_where, c) => {
    const validate = validator(c.schemaPointer);
    const ok = validate(c.value);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it("validates the examples of parameters and headers", () => {
    let checked = 0;
    for (const [kind, map] of [
      ["parameters", doc.components?.parameters],
      ["headers", doc.components?.headers],
    ] as const) {
      for (const [name, node] of Object.entries<Json>(map ?? {})) {
        for (const [i, value] of (node.schema?.examples ?? []).entries()) {
          const validate = validator(`/components/${kind}/${pointerToken(name)}/schema`);
          expect(validate(value), `${kind}/${name} example ${i}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
