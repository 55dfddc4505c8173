// The contract tests' requests, shared: client-mock-conformance.test.ts sends them to the mock and
// prism-judge.test.ts to the sandbox through Prism's validating proxy.
import type { IdvClient } from "../../src/index.js";
import { deref, type Json, jsonRequestExamples, loadOpenApi, operations } from "../support/contract.js";

/** The bundled contract. */
export const doc = loadOpenApi();
/** Every operation of the contract. */
export const ops = operations(doc);

/** The first request example of an operation (JSON), or a small PDF form for the upload. */
export function requestFor(op: Json): { body?: unknown; form?: boolean } {
  const content = deref(doc, op.requestBody)?.content ?? {};
  if (content["multipart/form-data"]) return { form: true };
  const examples = jsonRequestExamples(doc, op);
  return examples ? { body: examples[0] } : {};
}

/** A small PDF file, the upload of every multipart request. */
export const pdf = () => new File(["%PDF-1.4\n%%EOF\n"], "trust-deed.pdf", { type: "application/pdf" });

/** Call an operation by method and template through a client, loosely typed for table-driven tests. */
export async function callOperation(
  c: IdvClient,
  method: string,
  template: string,
  headers: Record<string, string> = {},
  body?: unknown,
  /** More of the client's init: `parseAs` for a caller that judges the recorded bytes, not the parsed body. */
  more: Record<string, unknown> = {},
) {
  const params = {
    path: Object.fromEntries(
      [...template.matchAll(/\{(\w+)\}/g)].map((m) => [
        m[1],
        m[1] === "id" ? 1042 : "5f3c9a0e-8d2b-4f61-9c7a-2b1e4d6f8a90",
      ]),
    ),
  };
  const { form, body: example } = requestFor(ops.find((o) => o.path === template && o.method === method)?.op);
  const init: Record<string, unknown> = { params, headers, ...more };
  if (form) {
    const data = new FormData();
    data.set("file", pdf());
    init.body = data;
    init.bodySerializer = (b: FormData) => b;
  } else if (body !== undefined || example !== undefined) init.body = body ?? example;
  const fn = (
    c as unknown as Record<
      string,
      (p: string, i: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>
    >
  )[method.toUpperCase()];
  if (!fn) throw new Error(`no client method ${method}`);
  return fn(template, init);
}

export const name = (o: (typeof ops)[number]) => `${o.method.toUpperCase()} ${o.path}`;
export const shapeOf = (path: string) => (path.startsWith("/api/v2/manual_eidv") ? "A" : "B");
