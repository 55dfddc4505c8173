// Valid exchanges built from the contract's own examples: every operation, every documented status,
// every example. They are the base of the benchmark corpus and of the conformance tests.
import { HTTP_METHODS } from "../src/contract/http-methods.js";
import { isJsonEssence } from "../src/contract/media-type.js";
import type { Exchange, HeaderMap, RecordedBody } from "../conformance/traffic/exchange.js";
import { resolveRef as deref } from "../scripts/lib/json-ref.js";
import type { Json } from "../src/contract/json.js";

/** A valid exchange and what it exercises. */
export interface ExampleExchange {
  operationId: string;
  status: number;
  mediaType?: string;
  /** Whether the response schema names members (so that an added one is undescribed). */
  describesMembers: boolean;
  exchange: Exchange;
}

/** Whether a schema names its members (through allOf/oneOf/anyOf too) and allows no others explicitly. */
function namesMembers(document: Json, raw: Json, depth = 0): boolean {
  const schema = deref(document, raw);
  if (!schema || typeof schema !== "object" || depth > 8) return false;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return false;
  if (schema.patternProperties) return false;
  if (schema.properties && Object.keys(schema.properties).length > 0) return true;
  return [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].some((s: Json) =>
    namesMembers(document, s, depth + 1),
  );
}

/** The example values of a media type object. */
function examplesOf(document: Json, media: Json): Json[] {
  if (media?.example !== undefined) return [media.example];
  return Object.values<Json>(media?.examples ?? {}).map((e) => deref(document, e)?.value);
}

/** A parameter value: its schema's first example, else something of its type. */
function parameterValue(document: Json, parameter: Json): string {
  const schema = deref(document, parameter.schema) ?? {};
  const example = schema.examples?.[0] ?? schema.example;
  if (example !== undefined) return String(example);
  return schema.type === "integer" ? "1" : "value";
}

/** The headers of the operation's first security alternative, with plausible values. */
function securityHeaders(document: Json, op: Json): HeaderMap {
  const headers: HeaderMap = {};
  const schemes = document.components?.securitySchemes ?? {};
  const first = (op.security ?? document.security ?? [])[0] ?? {};
  for (const name of Object.keys(first)) {
    const scheme = schemes[name];
    if (scheme?.type !== "apiKey" || scheme.in !== "header") continue;
    const header = String(scheme.name);
    headers[header.toLowerCase()] = /date/i.test(header)
      ? "2026-11-22T09:30:00.000Z"
      : /signature/i.test(header)
        ? "9f2c4e7a1b3d5f6e8a0c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f"
        : `${header.toLowerCase()}-0123456789`;
  }
  return headers;
}

const CRLF = "\r\n";

/** A multipart/form-data body with one part per example member; file parts carry a small PDF. */
function multipart(example: Json, boundary: string): string {
  const pdf = "%PDF-1.4\n%%EOF\n";
  let out = "";
  for (const name of Object.keys(example ?? {})) {
    out += `--${boundary}${CRLF}Content-Disposition: form-data; name="${name}"; filename="${name}.pdf"${CRLF}`;
    out += `Content-Type: application/pdf${CRLF}${CRLF}${pdf}${CRLF}`;
  }
  return `${out}--${boundary}--${CRLF}`;
}

function bodyOf(value: Json, mediaType: string): RecordedBody {
  if (isJsonEssence(mediaType)) return { kind: "text", text: JSON.stringify(value) };
  return { kind: "text", text: String(value) };
}

/** Every valid exchange the contract's examples describe. */
export function exampleExchanges(document: Json): ExampleExchange[] {
  const out: ExampleExchange[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
        deref(document, p),
      );
      let path = template;
      for (const p of parameters.filter((p) => p.in === "path")) {
        path = path.replace(`{${p.name}}`, encodeURIComponent(parameterValue(document, p)));
      }
      const requestHeaders = securityHeaders(document, op);
      let requestBody: RecordedBody | undefined;
      const requestSpec = deref(document, op.requestBody);
      if (requestSpec?.content) {
        const [mediaType, media] = Object.entries<Json>(requestSpec.content)[0] ?? [];
        if (mediaType) {
          const example = examplesOf(document, media)[0];
          if (mediaType === "multipart/form-data") {
            const boundary = "----idv-boundary-7c1e9b44";
            requestHeaders["content-type"] = `multipart/form-data; boundary=${boundary}`;
            requestBody = { kind: "text", text: multipart(example, boundary) };
          } else {
            requestHeaders["content-type"] = mediaType;
            requestBody = bodyOf(example ?? {}, mediaType);
          }
        }
      }
      for (const [status, rawResponse] of Object.entries<Json>(op.responses ?? {})) {
        if (!/^\d{3}$/.test(status)) continue;
        const response = deref(document, rawResponse);
        const headers: HeaderMap = {};
        for (const [name, rawHeader] of Object.entries<Json>(response.headers ?? {})) {
          const header = deref(document, rawHeader);
          const schema = deref(document, header.schema) ?? {};
          const example = header.example ?? schema.examples?.[0] ?? schema.example;
          if (example !== undefined) headers[name.toLowerCase()] = String(example);
        }
        const contents = Object.entries<Json>(response.content ?? {});
        const variants: { mediaType?: string; body?: RecordedBody; describesMembers?: boolean }[] =
          contents.length === 0
            ? [{}]
            : contents.flatMap(([mediaType, media]) =>
                examplesOf(document, media).map((value) => ({
                  mediaType,
                  body: bodyOf(value, mediaType),
                  describesMembers: namesMembers(document, media.schema),
                })),
              );
        for (const variant of variants) {
          out.push({
            operationId: op.operationId,
            status: Number(status),
            mediaType: variant.mediaType,
            describesMembers: variant.describesMembers === true,
            exchange: {
              index: out.length,
              request: {
                method: method.toUpperCase(),
                path,
                query: {},
                headers: { ...requestHeaders },
                body: requestBody,
              },
              response: {
                status: Number(status),
                headers: variant.mediaType
                  ? { ...headers, "content-type": variant.mediaType }
                  : { ...headers },
                body: variant.body,
              },
            },
          });
        }
      }
    }
  }
  return out;
}
