// The contract's links, followed in the sandbox. OpenAPI links are unconditional: a link of a
// response holds for every answer that response covers, so following it must never find nothing.
// Every link leads to an operation that exists, with parameters it has; and every link of a
// creation's answer, followed after creating with each example of the creation's body, is answered
// with a 2xx or a state refusal its target documents (an export not completed, or archived): never
// a 404. The creations, their examples and their links are all read from the contract.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LinkModel,
  type ProbeOperation,
  probeOperations,
  resolve,
} from "../../conformance/probe/contract-operations.js";
import { credentialHeaders } from "../../conformance/probe/credentials.js";
import { exampleBody } from "../../conformance/probe/request-body.js";
import { createSandbox, type InProcessSandbox } from "../../sandbox/index.js";
import { type Json, loadOpenApi } from "../support/contract.js";

const doc = loadOpenApi();
const operations = probeOperations(doc);
const byId = new Map(operations.map((op) => [op.operationId, op]));

/** Error codes that refuse a record for the state it is in, not for the request's values. */
const STATE_REFUSALS = new Set(["ALREADY_ARCHIVED", "NOT_COMPLETED"]);

/** Every link of every response, with where it is given. */
const allLinks = operations.flatMap((op) =>
  [...op.links].flatMap(([status, links]) => links.map((link) => ({ from: op, status, link }))),
);

/** A creation: it needs no record before it (no path parameter) and takes a body with examples. */
const creations = operations.filter(
  (op) => op.pathParams.length === 0 && (op.body?.examples.length ?? 0) > 0 && op.links.size > 0,
);

/** One case: create with an example, then follow one link of the 2xx answer. */
const cases = creations.flatMap((op) =>
  (op.body?.examples ?? []).flatMap((example) =>
    [...op.links]
      .filter(([status]) => /^2\d\d$/.test(status))
      .flatMap(([status, links]) =>
        links.map((link) => ({
          name: `${op.operationId} (${example.name}) → ${link.name}`,
          op,
          example,
          status,
          link,
        })),
      ),
  ),
);

/** The value a JSON pointer names in a value, or undefined. */
function atPointer(value: unknown, pointer: string): unknown {
  let node = value;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** A link's runtime expression, evaluated on the request and answer it follows. */
function evaluate(expression: string, request: { path: Map<string, string> }, body: unknown): unknown {
  if (expression.startsWith("$response.body#"))
    return atPointer(body, expression.slice("$response.body#".length));
  if (expression.startsWith("$request.path."))
    return request.path.get(expression.slice("$request.path.".length));
  throw new Error(`a runtime expression this test does not read: ${expression}`);
}

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ key: "links-key", secret: "links-secret" });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Call an operation of the sandbox, signed, with its path values and its first example's body. */
async function call(op: ProbeOperation, path: Map<string, string>, value?: unknown) {
  const target = op.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(path.get(name) ?? ""),
  );
  const body =
    op.body &&
    exampleBody(op.body.mediaType, value ?? op.body.examples[0]?.value, "links-test", op.body.schema);
  const bytes = body?.bytes ?? Buffer.alloc(0);
  const { headers } = credentialHeaders(
    op.auth,
    { apiKey: sandbox.key, secret: sandbox.secret },
    "valid",
    bytes,
  );
  const answer = await sandbox.fetch(`${sandbox.url}${target}`, {
    method: op.method.toUpperCase(),
    headers: [...headers, ...(body ? [["content-type", body.contentType] as [string, string]] : [])],
    ...(body ? { body: new Uint8Array(bytes) } : {}),
  });
  const text = await answer.text();
  const type = answer.headers.get("content-type") ?? "";
  return { status: answer.status, json: type.includes("json") ? (JSON.parse(text) as Json) : undefined };
}

/** The error codes a documented 4xx response of an operation names in its schema or examples. */
function documentedCodes(op: ProbeOperation, status: number): Set<string> {
  const operation = doc.paths[op.template][op.method.toLowerCase()];
  const response = resolve(doc, operation.responses?.[String(status)] ?? {});
  return new Set(JSON.stringify(response).match(/[A-Z][A-Z_]+[A-Z]/g) ?? []);
}

describe("every link of the contract", () => {
  it("there are links, and creations that give some", () => {
    expect(allLinks.length).toBeGreaterThan(0);
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(allLinks.map((l) => [`${l.from.operationId} ${l.status} ${l.link.name}`, l] as const))(
    "%s leads to an operation that exists, naming only its parameters",
    (_, { link }: { link: LinkModel }) => {
      const target = byId.get(link.operationId);
      expect(target, `no operation ${link.operationId}`).toBeDefined();
      const names = new Set(target?.pathParams.map((p) => p.name));
      for (const name of link.parameters.keys()) expect(names).toContain(name);
    },
  );
});

describe("following each link of a creation's answer, for every example of its body", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s: a 2xx or a documented state refusal", async (_, c) => {
    const created = await call(c.op, new Map(), c.example.value);
    expect(String(created.status), `${c.op.operationId} answered ${created.status}`).toBe(c.status);
    const target = byId.get(c.link.operationId) as ProbeOperation;
    const path = new Map(
      [...c.link.parameters].map(([name, expression]) => [
        name,
        String(evaluate(expression, { path: new Map() }, created.json)),
      ]),
    );
    const followed = await call(target, path);
    if (followed.status >= 200 && followed.status < 300) return;
    const code = String((followed.json as { error_code?: unknown } | undefined)?.error_code);
    expect(
      { status: followed.status, code, documented: documentedCodes(target, followed.status).has(code) },
      `${c.link.operationId} answered ${followed.status} ${code}`,
    ).toEqual({
      status: 400,
      code: expect.toSatisfy((s: string) => STATE_REFUSALS.has(s)),
      documented: true,
    });
  });
});

// A follow-up valid for one kind of answer only is given where it always holds: the creation's
// answer names it per kind, told apart by the body, and the follow-up's own answer links to itself.
describe("the property verification's two kinds", () => {
  const create = byId.get("createPropertyVerification") as ProbeOperation;
  /** The operation for an answer's kind, as the creation's answer describes it (by its `address`). */
  const followUp = (answer: Json): ProbeOperation =>
    byId.get(
      typeof answer?.address === "string" ? "getTitleSearchDocument" : "getOnlineOwnershipPdf",
    ) as ProbeOperation;

  it("the creation's answer gives no link, and a link leads to the title search file", () => {
    expect(create.links.get("200") ?? []).toEqual([]);
    expect(allLinks.some(({ link }) => link.operationId === "getTitleSearchDocument")).toBe(true);
  });

  it.each(create.body?.examples.map((e) => [e.name, e] as const) ?? [])(
    "%s: the kind's file is answered, and every link of that answer then holds",
    async (_, example) => {
      const created = await call(create, new Map(), example.value);
      expect(created.status).toBe(200);
      const download = followUp(created.json);
      const path = new Map([["id", String(created.json?.id)]]);
      expect((await call(download, path)).status).toBe(200);
      const links = download.links.get("200") ?? [];
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) {
        const values = new Map(
          [...link.parameters].map(([k, e]) => [k, String(evaluate(e, { path }, undefined))]),
        );
        const again = await call(byId.get(link.operationId) as ProbeOperation, values);
        const code = String((again.json as { error_code?: unknown } | undefined)?.error_code);
        expect(again.status === 200 || (again.status === 400 && STATE_REFUSALS.has(code))).toBe(true);
      }
    },
  );
});
