// The operations of the contract as the probe drives them: how each authenticates, its path
// parameters, its request examples, the statuses it documents and the links its responses give.
import { type ContractOperation, contractOperations } from "../../src/contract/operations.js";
import { resolveRef } from "../../src/contract/resolve-ref.js";
import type { Json } from "../../src/contract/json.js";

/** A request example of an operation: its name in the contract and its value. */
export interface RequestExample {
  name: string;
  value: unknown;
}

/** A link of a response: the operation it leads to and how its parameters are found. */
export interface LinkModel {
  name: string;
  operationId: string;
  /** Parameter name → runtime expression (`$response.body#/id`, `$request.path.id`). */
  parameters: Map<string, string>;
  /** The answer the contract says following it gets (`x-expect`: a state's refusal), when it says one. */
  expect?: { status: number; code?: string };
}

/** A link's `x-expect` (`{status, code}`), when it is well formed. */
function expectOf(link: Json): LinkModel["expect"] {
  const e = link?.["x-expect"];
  if (typeof e?.status !== "number") return undefined;
  return { status: e.status, ...(typeof e.code === "string" ? { code: e.code } : {}) };
}

/** An operation of the contract, as the probe drives it. */
export interface ProbeOperation {
  operationId: string;
  method: string;
  template: string;
  /** Which credentials it takes: v2 (key and secret), v4 (key, date, signature) or none. */
  auth: "v2" | "v4" | "none";
  /** Path parameters, each with its resolved schema and the contract's example value. */
  pathParams: { name: string; schema: Json; example: unknown }[];
  body?: {
    mediaType: string;
    required: boolean;
    /** The body's schema, `$ref`s followed at its root. */
    schema: Json;
    examples: RequestExample[];
  };
  /** Documented statuses (`200`, `4XX`, `default`). */
  statuses: Set<string>;
  /** The 4xx statuses the operation documents, as numbers. */
  clientErrors: number[];
  /** Whether a 400 of this operation lists CRED_AT_RISK. */
  credentialsAtRisk: boolean;
  /** Links by response status. */
  links: Map<string, LinkModel[]>;
}

/** Resolve a node's `$ref`s (local only). */
export function resolve(document: Json, node: Json): Json {
  return resolveRef(document, node, "").node;
}

/** The credentials an operation takes, from the headers its security schemes travel in. */
function authOf(op: ContractOperation): ProbeOperation["auth"] {
  const headers = new Set(
    op.security.flatMap((alternative) =>
      alternative.flatMap((s) => (s.scheme?.type === "apiKey" && s.header ? [s.header.toLowerCase()] : [])),
    ),
  );
  return headers.has("svc-signature") ? "v4" : headers.has("svc-secret") ? "v2" : "none";
}

/** The path parameters of an operation, each with its resolved schema and the contract's example value. */
function pathParamsOf(document: Json, op: ContractOperation): ProbeOperation["pathParams"] {
  return op.parameters
    .map((p) => p.node)
    .filter((p) => p?.in === "path")
    .map((p) => {
      const schema = resolve(document, p.schema ?? {});
      const example =
        p.example ??
        Object.values<Json>(p.examples ?? {})[0]?.value ??
        schema.examples?.[0] ??
        schema.example;
      return { name: String(p.name), schema, example };
    });
}

/** The links of each response, and whether a 400 of the operation lists CRED_AT_RISK. */
function linksOf(document: Json, op: ContractOperation) {
  const links = new Map<string, LinkModel[]>();
  let credentialsAtRisk = false;
  for (const { key: status, node: response } of op.responses) {
    if (status === "400" && JSON.stringify(response).includes('"CRED_AT_RISK"')) credentialsAtRisk = true;
    const found: LinkModel[] = [];
    for (const [name, rawLink] of Object.entries<Json>(response?.links ?? {})) {
      const link = resolve(document, rawLink);
      if (typeof link?.operationId !== "string") continue;
      const expect = expectOf(link);
      found.push({
        name,
        operationId: link.operationId,
        parameters: new Map(Object.entries<Json>(link.parameters ?? {}).map(([k, v]) => [k, String(v)])),
        ...(expect ? { expect } : {}),
      });
    }
    if (found.length > 0) links.set(status, found);
  }
  return { links, credentialsAtRisk };
}

/** The request body the probe sends: the first media type, with its examples. */
function bodyOf(document: Json, op: ContractOperation): ProbeOperation["body"] {
  const media = op.requestBody?.content[0];
  if (!op.requestBody || !media) return undefined;
  const examples: RequestExample[] = Object.entries<Json>(media.node?.examples ?? {}).map(([name, ex]) => ({
    name,
    value: resolve(document, ex)?.value,
  }));
  if (examples.length === 0 && media.node?.example !== undefined)
    examples.push({ name: "example", value: media.node.example });
  return {
    mediaType: media.mediaType,
    required: op.requestBody.required,
    schema: resolve(document, media.schema ?? {}),
    examples,
  };
}

/** Every operation of a bundled OpenAPI document with an operationId, in document order. */
export function probeOperations(document: Json): ProbeOperation[] {
  const out: ProbeOperation[] = [];
  for (const op of contractOperations(document)) {
    if (typeof op.operationId !== "string") continue;
    const statuses = new Set(op.responses.map((r) => r.key.toUpperCase()));
    const { links, credentialsAtRisk } = linksOf(document, op);
    const operation: ProbeOperation = {
      operationId: op.operationId,
      method: op.method,
      template: op.template,
      auth: authOf(op),
      pathParams: pathParamsOf(document, op),
      statuses,
      clientErrors: [...statuses].filter((s) => /^4\d\d$/.test(s)).map(Number),
      credentialsAtRisk,
      links,
    };
    const body = bodyOf(document, op);
    if (body) operation.body = body;
    out.push(operation);
  }
  return out;
}

/** The contract's example path parameters of an operation. */
export function exampleParams(op: ProbeOperation): Map<string, string> {
  return new Map(op.pathParams.map((p) => [p.name, String(p.example ?? "1")]));
}
