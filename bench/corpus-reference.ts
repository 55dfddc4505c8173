// The benchmark's reference validator: a plain ajv compile of the contract's schemas and a few lines of
// routing and header rules, written here and sharing nothing with the suite's checks. It confirms every
// label of the independent corpus (a valid exchange is valid, a mutation is a violation) so that the
// suite is not graded against itself.
import type { ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { resolveRef as deref } from "../scripts/lib/json-ref.js";
import type { Json } from "../src/contract/json.js";
import { HTTP_METHODS } from "../src/contract/http-methods.js";

/** One recorded exchange in the corpus' own plain shape (what the NDJSON line holds). */
export interface PlainExchange {
  method: string;
  url: string;
  requestHeaders: [string, string][];
  requestBody?: Buffer;
  status?: number;
  responseHeaders: [string, string][];
  responseBody?: Buffer;
}

const header = (headers: [string, string][], name: string): string | undefined =>
  headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

const essence = (value: string | undefined): string | undefined => value?.split(";")[0]?.trim().toLowerCase();

/** Whether the contract accepts an exchange: every rule stated once, plainly, from the document. */
export class ReferenceValidator {
  private readonly ajv = new Ajv2020.default({ strict: false, allErrors: false, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: {
    method: string;
    regex: RegExp;
    names: string[];
    op: Json;
    pointer: string;
    /** Path-level and operation-level parameters, each with the pointer of its schema. */
    parameters: { parameter: Json; schemaPointer: string }[];
  }[] = [];

  constructor(private readonly document: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(document, "https://contract.invalid/openapi.json");
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      const names: string[] = [];
      const source = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{([^}]+)\\?\}/g, (_, n) => {
        names.push(n);
        return "([^/]+)";
      });
      for (const method of HTTP_METHODS) {
        if (!item[method]) continue;
        const itemPointer = `/paths/${template.replace(/~/g, "~0").replace(/\//g, "~1")}`;
        const pointer = `${itemPointer}/${method}`;
        const parameters = [
          ...(item.parameters ?? []).map((p: Json, i: number) => [p, `${itemPointer}/parameters/${i}`]),
          ...(item[method].parameters ?? []).map((p: Json, i: number) => [p, `${pointer}/parameters/${i}`]),
        ].map(([p, at]) => ({
          parameter: deref(document, p),
          schemaPointer: `${p.$ref ? p.$ref.slice(1) : at}/schema`,
        }));
        this.routes.push({
          method,
          regex: new RegExp(`^${source}$`),
          names,
          op: item[method],
          pointer,
          parameters,
        });
      }
    }
  }

  private validator(pointer: string): ValidateFunction {
    const known = this.compiled.get(pointer);
    if (known) return known;
    const fn = this.ajv.compile({ $ref: `https://contract.invalid/openapi.json#${pointer}` });
    this.compiled.set(pointer, fn);
    return fn;
  }

  private json(bytes: Buffer | undefined): { ok: true; value: unknown } | { ok: false } {
    try {
      return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
    } catch {
      return { ok: false };
    }
  }

  /** The first rule an exchange breaks, or undefined when the contract accepts it. */
  judge(x: PlainExchange): string | undefined {
    const url = new URL(x.url);
    const route = this.routes.find((r) => r.regex.test(url.pathname) && r.method === x.method.toLowerCase());
    if (!route) return "route";
    const { op, pointer } = route;
    const match = route.regex.exec(url.pathname) as RegExpExecArray;
    // Security: every header of one alternative.
    const schemes = this.document.components?.securitySchemes ?? {};
    const alternatives: Json[] = op.security ?? this.document.security ?? [];
    if (
      alternatives.length > 0 &&
      !alternatives.some((alt: Json) =>
        Object.keys(alt).every((name) => {
          const scheme = schemes[name];
          return scheme?.in !== "header" || Boolean(header(x.requestHeaders, scheme.name));
        }),
      )
    )
      return "security";
    // Parameters.
    for (const { parameter: p, schemaPointer } of route.parameters) {
      let raw: string | undefined;
      if (p.in === "path") raw = decodeURIComponent(match[route.names.indexOf(p.name) + 1] ?? "");
      else if (p.in === "query") raw = url.searchParams.get(p.name) ?? undefined;
      else if (p.in === "header") raw = header(x.requestHeaders, p.name);
      else continue;
      if (raw === undefined) {
        if (p.required) return "parameter";
        continue;
      }
      const schema = deref(this.document, p.schema) ?? {};
      let value: unknown = raw;
      if (schema.type === "integer") value = /^-?(0|[1-9][0-9]*)$/.test(raw) ? Number(raw) : raw;
      if (typeof value === "number" && !Number.isSafeInteger(value)) value = raw;
      if (!this.validator(schemaPointer)(value)) return "parameter";
    }
    // Request body.
    const requestBody = deref(this.document, op.requestBody);
    if (requestBody?.content) {
      if (!x.requestBody || x.requestBody.length === 0) {
        if (requestBody.required) return "request body";
      } else {
        const type = essence(header(x.requestHeaders, "content-type"));
        if (!type || !(type in requestBody.content)) return "request content type";
        if (type === "application/json") {
          const parsed = this.json(x.requestBody);
          const base = op.requestBody.$ref ? op.requestBody.$ref.slice(1) : `${pointer}/requestBody`;
          if (!parsed.ok || !this.validator(`${base}/content/application~1json/schema`)(parsed.value))
            return "request body";
        }
      }
    }
    // Response.
    if (x.status === undefined) return "no response";
    const key = [String(x.status), `${String(x.status)[0]}XX`, "default"].find((k) => k in op.responses);
    if (!key) return "status";
    const response = deref(this.document, op.responses[key]);
    const responseBase = op.responses[key].$ref
      ? op.responses[key].$ref.slice(1)
      : `${pointer}/responses/${key}`;
    for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
      if (deref(this.document, raw).required && header(x.responseHeaders, name) === undefined)
        return "response header";
    }
    const content = response.content ?? {};
    if (Object.keys(content).length === 0)
      return x.responseBody && x.responseBody.length > 0 ? "response body" : undefined;
    const type = essence(header(x.responseHeaders, "content-type"));
    if (!type || !(type in content)) return "response content type";
    if (type === "application/json") {
      const parsed = this.json(x.responseBody);
      const at = `${responseBase}/content/application~1json/schema`;
      if (!parsed.ok || !this.validator(at)(parsed.value)) return "response body";
    } else if (type === "application/pdf" && !x.responseBody?.subarray(0, 5).equals(Buffer.from("%PDF-"))) {
      return "response body";
    }
    return undefined;
  }
}
