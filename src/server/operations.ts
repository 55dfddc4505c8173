// Each operation of a contract as the servers route and check it, read once from the bundled document.
import { type ContractOperation, contractOperations } from "../contract/operations.js";
import { resolveRef } from "../contract/resolve-ref.js";
import { RouteTable } from "../contract/router.js";
import { decodeSegment } from "./request-target.js";
import type { Json } from "../contract/json.js";

export type ErrorShape = "A" | "B";

export interface FileConstraints {
  maxBytesExclusive: number;
  mediaTypes: string[];
  extensions: string[];
}

export interface Operation {
  operationId: string;
  method: string;
  template: string;
  pattern: RegExp;
  /** Path parameter names in template order, and whether each is an integer. */
  params: { name: string; integer: boolean }[];
  securityHeaders: string[];
  shape: ErrorShape;
  body?: { mediaType: string; required: boolean; schemaPointer: string; file?: FileConstraints };
  /** The documented codes of each error status, first the most general, e.g. 422 → [NOT_CREATED]. */
  errors: Map<number, string[]>;
  /** The media types of the success response, e.g. [application/pdf, application/zip]. */
  mediaTypes: string[];
  /** The example names of each documented status, for `Prefer: example=` (all media types together). */
  examples: Map<number, string[]>;
}

/** Follow local `$ref`s in a bundled document. */
const deref = (doc: Json, node: Json): Json => resolveRef(doc, node, "").node;

function codes(doc: Json, response: Json, member: "error_type" | "error_code"): string[] {
  const schema = deref(doc, response?.content?.["application/json"]?.schema);
  return (schema?.allOf ?? []).flatMap((part: Json) => part?.properties?.[member]?.enum ?? []);
}

/** The request body as the servers check it: its first media type. */
function bodyOf(doc: Json, model: ContractOperation): Operation["body"] {
  const rb = model.requestBody;
  if (!rb) return undefined;
  const media = rb.content[0];
  const fileSchema = deref(doc, media?.schema)?.properties?.file;
  return {
    mediaType: media?.mediaType ?? "application/json",
    required: rb.required,
    schemaPointer: media?.schemaPointer ?? `${rb.pointer}/content//schema`,
    file: fileSchema?.["x-file-constraints"],
  };
}

/** One operation of the contract model as the servers route and check it. */
function serverOperation(doc: Json, model: ContractOperation): Operation {
  const { template } = model;
  const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => {
    const declared = model.pathItemParameters.find((p) => p.node?.name === m[1])?.node;
    return { name: m[1] as string, integer: declared?.schema?.type === "integer" };
  });
  const pattern = new RegExp(
    `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, "([^/]+)")}$`,
  );
  // The operation's own first alternative: the servers ask for one set of credentials.
  const securityHeaders = model.ownSecurity
    ? (model.security[0] ?? []).map((s) => s.scheme?.name as string)
    : [];
  const firstError = model.responses.find((r) => /^4/.test(r.key))?.node;
  const errorSchema = deref(doc, firstError?.content?.["application/json"]?.schema);
  const shape: ErrorShape = String(errorSchema?.allOf?.[0]?.$ref ?? "").endsWith("/ManualVerificationError")
    ? "A"
    : "B";
  const member = shape === "A" ? "error_type" : "error_code";
  const errors = new Map<number, string[]>();
  const examples = new Map<number, string[]>();
  let mediaTypes: string[] = [];
  for (const response of model.responses) {
    const found = codes(doc, response.node, member);
    if (found.length > 0 && /^[45]/.test(response.key)) errors.set(Number(response.key), found);
  }
  for (const response of model.responses) {
    if (/^2/.test(response.key) && mediaTypes.length === 0)
      mediaTypes = response.content.map((m) => m.mediaType);
    const names = response.content.flatMap((media) => Object.keys(media.node?.examples ?? {}));
    examples.set(Number(response.key), [...new Set(names)]);
  }
  return {
    operationId: model.operationId as string,
    method: model.method,
    template,
    pattern,
    params,
    securityHeaders,
    shape,
    body: bodyOf(doc, model),
    errors,
    mediaTypes,
    examples,
  };
}

/** Every operation of a bundled contract document, ready for routing and request checks. */
export function loadOperations(doc: Json): Operation[] {
  return contractOperations(doc).map((model) => serverOperation(doc, model));
}

/** The router of each list of operations, built on first use. */
const routers = new WeakMap<Operation[], RouteTable<Operation>>();

function routerOf(operations: Operation[]): RouteTable<Operation> {
  let router = routers.get(operations);
  if (router === undefined) {
    router = new RouteTable(
      operations.map((op) => ({ template: op.template, method: op.method, target: op })),
    );
    routers.set(operations, router);
  }
  return router;
}

/** The operation for a method and path (its parameters decoded), and the path's operations under other methods. */
export function routeOperation(operations: Operation[], method: string, path: string) {
  const others: Operation[] = [];
  for (const route of routerOf(operations).routesOf(path)) {
    const op = route.target;
    const params = route.values.map((p) => decodeSegment(p));
    // A segment that is not valid percent-encoding matches no operation.
    if (params.some((p) => p === undefined)) continue;
    if (op.method === method) return { op, params: params as string[], others };
    others.push(op);
  }
  return { others };
}

/** The error shape of a path no operation answers: that of its product (A for manual verification). */
export const shapeOfPath = (path: string | undefined): ErrorShape =>
  path?.startsWith("/api/v2/manual_eidv") ? "A" : "B";
