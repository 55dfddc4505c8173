// Each operation of a contract as the servers route and check it, read once from the bundled document.
import { escapeToken } from "../contract/json-pointer.js";
import { resolveRef } from "../contract/resolve-ref.js";
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

const METHODS = ["get", "put", "post", "patch", "delete"];

/** Follow local `$ref`s in a bundled document. */
const deref = (doc: Json, node: Json): Json => resolveRef(doc, node, "").node;

function codes(doc: Json, response: Json, member: "error_code" | "error_type"): string[] {
  const schema = deref(doc, deref(doc, response)?.content?.["application/json"]?.schema);
  return (schema?.allOf ?? []).flatMap((part: Json) => part?.properties?.[member]?.enum ?? []);
}

/** Every operation of a bundled contract document, ready for routing and request checks. */
export function loadOperations(doc: Json): Operation[] {
  const schemes = doc.components?.securitySchemes ?? {};
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    const pathParams = [...(item.parameters ?? [])].map((p: Json) => deref(doc, p));
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => {
        const declared = pathParams.find((p: Json) => p.name === m[1]);
        return { name: m[1] as string, integer: declared?.schema?.type === "integer" };
      });
      const pattern = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, "([^/]+)")}$`,
      );
      const securityHeaders = Object.keys(op.security?.[0] ?? {}).map((s) => schemes[s]?.name as string);
      const errorSchema = deref(
        doc,
        deref(doc, Object.entries<Json>(op.responses).find(([s]) => /^4/.test(s))?.[1])?.content?.[
          "application/json"
        ]?.schema,
      );
      const shape: ErrorShape = String(errorSchema?.allOf?.[0]?.$ref ?? "").endsWith(
        "/ManualVerificationError",
      )
        ? "A"
        : "B";
      const member = shape === "A" ? "error_type" : "error_code";
      const errors = new Map<number, string[]>();
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const found = codes(doc, response, member);
        if (found.length > 0 && /^[45]/.test(status)) errors.set(Number(status), found);
      }
      const examples = new Map<number, string[]>();
      let mediaTypes: string[] = [];
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const content = deref(doc, response)?.content ?? {};
        if (/^2/.test(status) && mediaTypes.length === 0) mediaTypes = Object.keys(content);
        const names = Object.values<Json>(content).flatMap((media) => Object.keys(media?.examples ?? {}));
        examples.set(Number(status), [...new Set(names)]);
      }
      const pointer = `/paths/${escapeToken(template)}/${method}`;
      let body: Operation["body"];
      if (op.requestBody) {
        const rb = deref(doc, op.requestBody);
        const [mediaType, media] = Object.entries<Json>(rb.content)[0] ?? [];
        const schema = deref(doc, media?.schema);
        const fileSchema = schema?.properties?.file;
        body = {
          mediaType: mediaType ?? "application/json",
          required: rb.required === true,
          schemaPointer: `${pointer}/requestBody/content/${escapeToken(mediaType ?? "")}/schema`,
          file: fileSchema?.["x-file-constraints"],
        };
      }
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        pattern,
        params,
        securityHeaders,
        shape,
        body,
        errors,
        mediaTypes,
        examples,
      });
    }
  }
  return operations;
}

/** The operation for a method and path (its parameters decoded), and the path's operations under other methods. */
export function routeOperation(operations: Operation[], method: string, path: string) {
  const others: Operation[] = [];
  for (const op of operations) {
    const match = op.pattern.exec(path);
    if (!match) continue;
    const params = match.slice(1).map((p) => decodeSegment(p ?? ""));
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
