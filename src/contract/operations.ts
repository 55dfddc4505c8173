// The one operation model of a bundled OpenAPI document: each operation with its parameters, request
// body, responses and security, every `$ref` followed once and every node kept with the pointer where
// it really sits. The servers, the conformance checks, the probe and code generation all derive what
// they need from it; none walks `paths` on its own.
import { HTTP_METHODS, type HttpMethod } from "./http-methods.js";
import { escapeToken } from "./json-pointer.js";
import type { Json } from "./json.js";
import { ownMember, resolveRef, UnresolvedRefError } from "./resolve-ref.js";
import { securityOf, type SecurityScheme } from "./security.js";

export type { SecurityScheme } from "./security.js";

/** A node of the document with its `$ref`s followed, and the pointer where it really sits. */
export interface Located {
  node: Json;
  pointer: string;
}

/** A parameter of an operation. */
export interface ContractParameter extends Located {
  /** Where it is declared: on the path item (shared by its operations) or on the operation. */
  level: "path" | "operation";
}

/** One media type of a request or response body (`content` member), its key as written. */
export interface ContractMedia extends Located {
  mediaType: string;
  /** The media type's `schema` as written (a `$ref` not followed) and the pointer of that member. */
  schema: Json;
  schemaPointer: string;
}

/** A documented response header. */
export interface ContractHeader extends Located {
  name: string;
  /** Where the header sits under its operation's response: `…/responses/200/headers/X-Name`. */
  location: string;
}

/** A documented response of one status key (`200`, `4XX` or `default`), as written. */
export interface ContractResponse extends Located {
  key: string;
  /** Where the response sits under its operation (`…/responses/200`); `pointer` is where its `$ref` leads. */
  location: string;
  content: ContractMedia[];
  headers: ContractHeader[];
}

/** One operation of the document. */
export interface ContractOperation extends Located {
  /** As written: code generation requires it, the probe skips an operation without one. */
  operationId: string | undefined;
  /** Upper-cased (`GET`), as requests carry it. */
  method: string;
  lowerMethod: HttpMethod;
  template: string;
  /** How messages name the operation: `GET /x`. */
  where: string;
  /** The path item's parameters alone, in document order. */
  pathItemParameters: Located[];
  /** Path item and operation parameters together; the operation's override the path item's of the same name and location. */
  parameters: ContractParameter[];
  requestBody?: Located & { required: boolean; content: ContractMedia[] };
  responses: ContractResponse[];
  /** Each alternative of the security requirement in force (the operation's, else the document's). */
  security: SecurityScheme[][];
  /** Whether the operation states its own security requirement (rather than inheriting the document's). */
  ownSecurity: boolean;
}

/** Follow `$ref`s, naming where a broken one was met. */
function located(document: Json, node: Json, pointer: string, where: string): Located {
  try {
    return resolveRef(document, node, pointer);
  } catch (error) {
    if (error instanceof UnresolvedRefError) throw new UnresolvedRefError(error.ref, error.reason, where);
    throw error;
  }
}

function contentOf(document: Json, content: Json, pointer: string, where: string): ContractMedia[] {
  return Object.entries<Json>(content ?? {}).map(([mediaType, raw]) => {
    const media = located(document, raw, `${pointer}/${escapeToken(mediaType)}`, `${where} ${mediaType}`);
    return { mediaType, ...media, schema: media.node?.schema, schemaPointer: `${media.pointer}/schema` };
  });
}

function parametersOf(document: Json, list: Json, base: string, where: string): Located[] {
  return [...(list ?? [])].map((raw: Json, i) =>
    located(document, raw, `${base}/${i}`, `${where} parameter ${i}`),
  );
}

function responsesOf(document: Json, op: Json, pointer: string, where: string): ContractResponse[] {
  return Object.entries<Json>(op.responses ?? {}).map(([key, raw]) => {
    const location = `${pointer}/responses/${escapeToken(key)}`;
    const at = `${where} response ${key}`;
    const response = located(document, raw, location, at);
    const headers = Object.entries<Json>(response.node?.headers ?? {}).map(([name, rawHeader]) => ({
      name,
      location: `${location}/headers/${escapeToken(name)}`,
      ...located(
        document,
        rawHeader,
        `${response.pointer}/headers/${escapeToken(name)}`,
        `${at} header ${name}`,
      ),
    }));
    const content = contentOf(document, response.node?.content, `${response.pointer}/content`, at);
    return { key, location, ...response, content, headers };
  });
}

function operationOf(
  document: Json,
  template: string,
  item: Located,
  lowerMethod: HttpMethod,
  pathItemParameters: Located[],
): ContractOperation {
  const node = item.node[lowerMethod];
  const pointer = `${item.pointer}/${lowerMethod}`;
  const method = lowerMethod.toUpperCase();
  const where = `${method} ${template}`;
  // Keyed by location and name, so an operation's parameter takes the place of the path item's.
  const parameters = new Map<string, ContractParameter>();
  for (const p of pathItemParameters)
    parameters.set(`${p.node?.in}:${p.node?.name}`, { ...p, level: "path" });
  for (const p of parametersOf(document, node.parameters, `${pointer}/parameters`, where))
    parameters.set(`${p.node?.in}:${p.node?.name}`, { ...p, level: "operation" });
  let requestBody: ContractOperation["requestBody"];
  if (node.requestBody) {
    const body = located(document, node.requestBody, `${pointer}/requestBody`, `${where} requestBody`);
    requestBody = {
      ...body,
      required: body.node?.required === true,
      content: contentOf(document, body.node?.content, `${body.pointer}/content`, `${where} requestBody`),
    };
  }
  const requirements: Json = node.security ?? document.security ?? [];
  return {
    operationId: node.operationId,
    node,
    pointer,
    method,
    lowerMethod,
    template,
    where,
    pathItemParameters,
    parameters: [...parameters.values()],
    requestBody,
    responses: responsesOf(document, node, pointer, where),
    security: securityOf(requirements, (name, pointer) =>
      located(
        document,
        ownMember(document.components?.securitySchemes, name),
        pointer,
        `${where} security ${name}`,
      ),
    ),
    ownSecurity: node.security !== undefined,
  };
}

/** Every operation of a bundled OpenAPI document, in document order (paths, then HTTP_METHODS order). */
export function contractOperations(document: Json): ContractOperation[] {
  const operations: ContractOperation[] = [];
  for (const [template, raw] of Object.entries<Json>(document?.paths ?? {})) {
    const item = located(document, raw, `/paths/${escapeToken(template)}`, template);
    const shared = parametersOf(document, item.node.parameters, `${item.pointer}/parameters`, template);
    for (const method of HTTP_METHODS)
      if (item.node[method]) operations.push(operationOf(document, template, item, method, shared));
  }
  return operations;
}
