// The operations of the contract as the probe drives them: how each authenticates, its path
// parameters, its request examples, the statuses it documents and the links its responses give.
import { ownMember, resolveRef } from "../../src/contract/resolve-ref.js";
import type { Json } from "../../src/contract/json.js";

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

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

/** Every operation of a bundled OpenAPI document, in document order. */
export function probeOperations(document: Json): ProbeOperation[] {
  const out: ProbeOperation[] = [];
  const schemes: Json = document.components?.securitySchemes ?? {};
  for (const [template, rawItem] of Object.entries<Json>(document.paths ?? {})) {
    const item = resolve(document, rawItem);
    for (const method of METHODS) {
      const op = ownMember(item, method);
      if (!op || typeof op.operationId !== "string") continue;
      const security: Json[] = op.security ?? document.security ?? [];
      const headerNames = new Set<string>();
      for (const requirement of security)
        for (const name of Object.keys(requirement ?? {})) {
          const scheme = resolve(document, ownMember(schemes, name));
          if (scheme?.type === "apiKey" && scheme.in === "header") headerNames.add(scheme.name.toLowerCase());
        }
      const auth = headerNames.has("svc-signature") ? "v4" : headerNames.has("svc-secret") ? "v2" : "none";
      const parameters: Json[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
        resolve(document, p),
      );
      const pathParams = parameters
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
      const responses: Json = op.responses ?? {};
      const statuses = new Set(Object.keys(responses).map((s) => s.toUpperCase()));
      const clientErrors = [...statuses].filter((s) => /^4\d\d$/.test(s)).map(Number);
      const links = new Map<string, LinkModel[]>();
      let credentialsAtRisk = false;
      for (const [status, rawResponse] of Object.entries<Json>(responses)) {
        const response = resolve(document, rawResponse);
        if (status === "400" && JSON.stringify(response).includes('"CRED_AT_RISK"')) credentialsAtRisk = true;
        const found: LinkModel[] = [];
        for (const [name, rawLink] of Object.entries<Json>(response?.links ?? {})) {
          const link = resolve(document, rawLink);
          if (typeof link?.operationId !== "string") continue;
          found.push({
            name,
            operationId: link.operationId,
            parameters: new Map(Object.entries<Json>(link.parameters ?? {}).map(([k, v]) => [k, String(v)])),
          });
        }
        if (found.length > 0) links.set(status, found);
      }
      const operation: ProbeOperation = {
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        auth,
        pathParams,
        statuses,
        clientErrors,
        credentialsAtRisk,
        links,
      };
      if (op.requestBody) {
        const body = resolve(document, op.requestBody);
        const [mediaType, rawMedia] = Object.entries<Json>(body.content ?? {})[0] ?? [];
        if (mediaType) {
          const media = resolve(document, rawMedia);
          const examples: RequestExample[] = Object.entries<Json>(media.examples ?? {}).map(([name, ex]) => ({
            name,
            value: resolve(document, ex)?.value,
          }));
          if (examples.length === 0 && media.example !== undefined)
            examples.push({ name: "example", value: media.example });
          operation.body = {
            mediaType,
            required: body.required === true,
            schema: resolve(document, media.schema ?? {}),
            examples,
          };
        }
      }
      out.push(operation);
    }
  }
  return out;
}

/** The contract's example path parameters of an operation. */
export function exampleParams(op: ProbeOperation): Map<string, string> {
  return new Map(op.pathParams.map((p) => [p.name, String(p.example ?? "1")]));
}
