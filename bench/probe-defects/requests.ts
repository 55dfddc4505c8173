// Requests made from the contract for the defects' own checks: an operation's request examples and
// example path parameter, sent with the credentials its security asks for (v2: key and secret;
// v4: key, date and a signature over the date and the body).
import bundled from "../../generated/openapi.json" with { type: "json" };
import type { Json } from "../../src/contract/json.js";
import { resolveRef } from "../../src/contract/resolve-ref.js";
import { hmacSigning } from "../../src/client/signer.js";
import { type ForwardRequest, operationById } from "./exchange.js";

const doc = bundled as Json;
const deref = (node: Json): Json => resolveRef(doc, node, "").node;

function operationNode(id: string): { node: Json; pathItem: Json } {
  for (const pathItem of Object.values(doc.paths as Record<string, Json>))
    for (const node of Object.values(pathItem as Record<string, Json>))
      if (node?.operationId === id) return { node, pathItem };
  throw new Error(`no operation ${id}`);
}

/** Every JSON request example of an operation, in the contract's order ([] when it has none). */
export function exampleBodies(operationId: string): Json[] {
  const { node } = operationNode(operationId);
  const media = deref(node.requestBody)?.content?.["application/json"];
  return Object.values((media?.examples ?? {}) as Record<string, Json>).map((e) => deref(e).value);
}

/** The example of an operation's path parameter (`1042`, a UUID), or undefined when it has none. */
export function exampleParam(operationId: string): string | undefined {
  const { node, pathItem } = operationNode(operationId);
  const params = [...(pathItem.parameters ?? []), ...(node.parameters ?? [])].map(deref);
  const path = params.find((p: Json) => p?.in === "path");
  const example = path?.schema?.examples?.[0] ?? path?.example;
  return example === undefined ? undefined : String(example);
}

/** A request of an operation with a JSON body (or none) and a path parameter, signed as it asks. */
export function buildRequest(
  operationId: string,
  { body, param }: { body?: Json; param?: string },
  credentials: { key: string; secret: string },
): ForwardRequest {
  const op = operationById(operationId);
  const url = op.template.replace(/\{\w+\}/, encodeURIComponent(param ?? ""));
  const bytes = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
  const headers: [string, string][] = [["Svc-API-Key", credentials.key]];
  if (op.securityHeaders.includes("Svc-Secret")) headers.push(["Svc-Secret", credentials.secret]);
  if (op.securityHeaders.includes("Svc-Signature")) {
    const date = new Date().toISOString();
    headers.push(["Svc-Date", date], ["Svc-Signature", hmacSigning(credentials.secret)(date, bytes)]);
  }
  if (body !== undefined) headers.push(["Content-Type", "application/json"]);
  return { method: op.method.toUpperCase(), url, headers, body: bytes };
}
