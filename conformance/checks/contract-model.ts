import type { ValidateFunction } from "ajv";
import { isJsonEssence } from "../../src/contract/media-type.js";
import {
  type ContractMedia,
  type ContractOperation,
  contractOperations,
} from "../../src/contract/operations.js";
import { resolveRef } from "../../src/contract/resolve-ref.js";
import { RouteTable } from "../../src/contract/router.js";
import type { Json } from "../../src/contract/json.js";
import type { SchemaCompiler } from "../../src/contract/schema-compiler.js";

export type { SchemaCompiler };
export type { Json } from "../../src/contract/json.js";

/** A media type of a body, with the JSON pointer of its schema in the document. */
export interface MediaModel {
  mediaType: string;
  schemaPointer: string;
  schema: Json;
  /** The validator of `schemaPointer`, kept here on first use (see ContractModel.validatorOf). */
  validate?: ValidateFunction;
  /** The schema with its `$ref`s followed, kept here on first use. */
  resolved?: Json;
}

/** A documented parameter. */
export interface ParameterModel {
  name: string;
  /** Where the parameter sits in the document (its `$ref` followed). */
  pointer: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schemaPointer?: string;
  /** The name as recorded headers are keyed (lower-cased), for header parameters. */
  headerName: string;
  /** Whether a query parameter's schema takes an array (every recorded value is then checked). */
  array: boolean;
  /** What a recorded value is turned into before the schema judges it, and each item of an array. */
  coercion: Coercion;
  itemCoercion: Coercion;
  validate?: ValidateFunction;
}

/** A documented response header. */
export interface HeaderModel {
  name: string;
  /** Where the header sits under its operation's response: `…/responses/200/headers/X-Name`. */
  location: string;
  /** The name as recorded headers are keyed (lower-cased). */
  lowerName: string;
  required: boolean;
  schemaPointer?: string;
  validate?: ValidateFunction;
}

/** A documented response of one status key (`200`, `4XX` or `default`). */
export interface ResponseModel {
  key: string;
  /** Where the response sits under its operation (`…/responses/200`), and where its `$ref` leads. */
  location: string;
  pointer: string;
  media: MediaModel[];
  headers: HeaderModel[];
}

/** Everything the checks need to know about one operation, resolved once. */
export interface OperationModel {
  operationId: string;
  /** Where the operation sits in the document: `/paths/~1x/get`. */
  pointer: string;
  method: string;
  template: string;
  /**
   * The pointers of the security schemes of each alternative of the security requirement that travel
   * in a header, item for item with `security`: coverage credits only a scheme the check has seen.
   */
  securitySchemes: string[][];
  /** Each alternative of the security requirement, as the header names it needs (see SecurityScheme.header). */
  security: string[][];
  /** The same names lower-cased, as recorded headers are keyed. */
  securityLower: string[][];
  parameters: ParameterModel[];
  requestBody?: { required: boolean; media: MediaModel[] };
  responses: Map<string, ResponseModel>;
  /** The schema every 4xx/5xx JSON body of this operation is built on (the error shape). */
  errorShape?: { name: string; schemaPointer: string; validate?: ValidateFunction };
  /** Responses by recorded status, memoised as statuses are met (undefined: none documented). */
  byStatus: Map<number, ResponseModel | undefined>;
}

/** The JSON type a recorded parameter string is read as: its schema's number or boolean type, or text. */
export type Coercion = "integer" | "number" | "boolean" | "none";

/** The coercion a parameter schema asks for (a schema without a type keeps the text). */
function coercionOf(schema: Json): Coercion {
  if (!schema || typeof schema !== "object") return "none";
  const types: unknown[] = [schema.type ?? []].flat();
  if (types.includes("number")) return "number";
  if (types.includes("integer")) return "integer";
  return types.includes("boolean") ? "boolean" : "none";
}

/** The contract compiled for checking: a route table, operation models and their validators. */
export class ContractModel {
  readonly routes: RouteTable<OperationModel>;
  readonly operations: OperationModel[] = [];

  /** @param compiler ajv compiling on first use, or validators generated at build time */
  constructor(
    readonly document: Json,
    private readonly compiler: SchemaCompiler,
    basePaths: string[] = [],
  ) {
    for (const op of contractOperations(document)) this.operations.push(this.operation(op));
    const serverPaths = (document.servers ?? []).map((s: Json) => serverPath(String(s.url ?? "")));
    this.routes = new RouteTable(
      this.operations.map((o) => ({ template: o.template, method: o.method, target: o })),
      [...serverPaths, ...basePaths],
    );
  }

  /** The validator of a model's schema, looked up once and kept on the model (checks run per exchange). */
  validatorOf(holder: { schemaPointer: string; validate?: ValidateFunction }): ValidateFunction {
    let validate = holder.validate;
    if (validate === undefined) {
      validate = this.compiler.validator(holder.schemaPointer);
      holder.validate = validate;
    }
    return validate;
  }

  /** Every schema pointer a check may validate against: what build-time validators must cover. */
  schemaPointers(): string[] {
    const pointers = new Set<string>();
    for (const op of this.operations) {
      for (const p of op.parameters) if (p.schemaPointer) pointers.add(p.schemaPointer);
      for (const m of op.requestBody?.media ?? []) pointers.add(m.schemaPointer);
      for (const r of op.responses.values()) {
        for (const m of r.media) pointers.add(m.schemaPointer);
        for (const h of r.headers) if (h.schemaPointer) pointers.add(h.schemaPointer);
      }
      if (op.errorShape) pointers.add(op.errorShape.schemaPointer);
    }
    return [...pointers].sort();
  }

  /** Follow local `$ref`s from a node, keeping track of where it really sits. */
  resolve(node: Json, pointer: string): { node: Json; pointer: string } {
    return resolveRef(this.document, node, pointer);
  }

  private media(content: ContractMedia[]): MediaModel[] {
    return content.map((m) => ({
      mediaType: m.mediaType.toLowerCase(),
      schemaPointer: m.schemaPointer,
      schema: m.schema,
      // Present from the start so every model keeps one shape when they are filled in.
      validate: undefined,
      resolved: undefined,
    }));
  }

  private operation(op: ContractOperation): OperationModel {
    const parameters = op.parameters.map(({ node, pointer: at }): ParameterModel => ({
      name: node.name,
      pointer: at,
      in: node.in,
      required: node.in === "path" || node.required === true,
      schemaPointer: node.schema ? `${at}/schema` : undefined,
      headerName: String(node.name).toLowerCase(),
      array: [node.schema?.type].flat().includes("array"),
      coercion: coercionOf(node.schema),
      itemCoercion: coercionOf(node.schema?.items),
      validate: undefined,
    }));
    const requestBody = op.requestBody && {
      required: op.requestBody.required,
      media: this.media(op.requestBody.content),
    };
    const responses = new Map<string, ResponseModel>();
    for (const response of op.responses) {
      const headers = response.headers.map((header) => ({
        name: header.name,
        location: header.location,
        lowerName: header.name.toLowerCase(),
        required: header.node.required === true,
        schemaPointer: header.node.schema ? `${header.pointer}/schema` : undefined,
        validate: undefined,
      }));
      responses.set(response.key.toUpperCase(), {
        key: response.key,
        location: response.location,
        pointer: response.pointer,
        media: this.media(response.content),
        headers,
      });
    }
    // One list of schemes makes both views: the headers checked, and the schemes coverage credits for them.
    const seen = op.security.map((alternative) => alternative.filter((s) => s.header !== undefined));
    const security = seen.map((alternative) => alternative.map((s) => s.header as string));
    return {
      operationId: op.operationId ?? op.where,
      pointer: op.pointer,
      securitySchemes: seen.map((alternative) => alternative.map((s) => s.pointer)),
      method: op.method,
      template: op.template,
      security,
      securityLower: security.map((names) => names.map((n) => n.toLowerCase())),
      parameters,
      requestBody,
      responses,
      errorShape: this.errorShape(responses),
      byStatus: new Map(),
    };
  }

  /** The component schema most of the operation's error responses build on: `$ref` or `allOf[0].$ref`. */
  private errorShape(responses: Map<string, ResponseModel>): OperationModel["errorShape"] {
    const counts = new Map<string, number>();
    for (const [key, response] of responses) {
      if (!/^[45]/.test(key)) continue;
      for (const media of response.media) {
        if (!isJsonEssence(media.mediaType)) continue;
        const schema = media.schema ?? {};
        const ref: unknown =
          schema.$ref ?? schema.allOf?.find((s: Json) => typeof s?.$ref === "string")?.$ref;
        if (typeof ref === "string" && ref.startsWith("#/")) counts.set(ref, (counts.get(ref) ?? 0) + 1);
      }
    }
    const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (!best) return undefined;
    const schema = this.resolve({ $ref: best }, "");
    return {
      name: schema.node.title ?? best.slice(best.lastIndexOf("/") + 1),
      schemaPointer: best.slice(1),
      validate: undefined,
    };
  }
}

/** The path part of a server URL; variables such as `{base_url}` stand for scheme, host and any path. */
function serverPath(url: string): string {
  const withoutVariables = url.replace(/^\{[^}]+\}/, "");
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(withoutVariables);
  const path = match ? (match[1] ?? "") : withoutVariables;
  return path.includes("{") ? "" : path;
}
