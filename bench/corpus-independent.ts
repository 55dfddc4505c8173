// The benchmark's corpus, made without the suite: bodies from the schemas (seeded json-schema-faker) and
// the contract's examples, header names in the casings clients really send, absolute URLs with query
// strings, binary bodies as base64, and one of the mutations below in a third of the exchanges. Every
// label is made by construction and confirmed by the reference validator (corpus-reference.ts); samples
// it does not confirm are dropped and counted.
import { generateSync } from "json-schema-faker";
import { resolveRef as deref } from "../scripts/lib/json-ref.js";
import { type PlainExchange, ReferenceValidator } from "./corpus-reference.js";
import { seededRandom } from "./seeded-random.js";
import type { Json } from "../src/contract/json.js";
import { HTTP_METHODS } from "../src/contract/http-methods.js";

/** A corpus line and what it should get. */
export interface IndependentEntry {
  line: string;
  /** The mutation applied, or undefined for a valid exchange. */
  mutation?: string;
  operationId: string;
}

/** What the corpus is made of, for the benchmark's description. */
export interface CorpusStats {
  valid: number;
  mutated: Map<string, number>;
  /** Samples the reference validator did not confirm, by what they were meant to be. */
  dropped: Map<string, number>;
  fromExamples: number;
  fromFaker: number;
}

const ORIGINS = ["https://idv.example.com", "https://api.idv.example.net", "http://10.0.0.12:8080"];

/** A header name as clients write it: Canonical-Case most often, lower or upper case sometimes. */
function casing(name: string, r: () => number): string {
  const canonical = name.replace(/(^|-)([a-z])/g, (_, d, c: string) => d + c.toUpperCase());
  const x = r();
  return x < 0.6 ? canonical : x < 0.85 ? name.toLowerCase() : name.toUpperCase();
}

const pdf = (r: () => number): Buffer =>
  Buffer.concat([
    Buffer.from("%PDF-1.7\n"),
    Buffer.from(Array.from({ length: 200 + Math.floor(r() * 2000) }, () => Math.floor(r() * 256))),
  ]);

interface Operation {
  template: string;
  method: string;
  op: Json;
  /** Path-level and operation-level parameters, resolved. */
  parameters: Json[];
}

/** Build `size` labelled exchanges as NDJSON lines. */
export function buildIndependentCorpus(
  document: Json,
  size: number,
  seed = 14,
): { entries: IndependentEntry[]; stats: CorpusStats } {
  const r = seededRandom(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(r() * list.length)] as T;
  const reference = new ReferenceValidator(document);
  const stats: CorpusStats = {
    valid: 0,
    mutated: new Map(),
    dropped: new Map(),
    fromExamples: 0,
    fromFaker: 0,
  };
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths ?? {}))
    for (const method of HTTP_METHODS) {
      if (!item[method]) continue;
      const parameters = [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: Json) =>
        deref(document, p),
      );
      operations.push({ template, method, op: item[method], parameters });
    }
  const schemes = document.components?.securitySchemes ?? {};
  const withComponents = (schema: Json) => ({ ...deref(document, schema), components: document.components });
  let fakerSeed = seed * 1000;

  /** A value for a schema: an example of it half the time, else json-schema-faker's. */
  const valueFor = (schema: Json, examples: Json[]): unknown => {
    if (examples.length > 0 && r() < 0.5) {
      stats.fromExamples++;
      return structuredClone(pick(examples));
    }
    stats.fromFaker++;
    return generateSync(withComponents(schema), { seed: fakerSeed++, optionalsProbability: 0.6 });
  };
  const examplesOf = (media: Json): Json[] =>
    media?.example !== undefined
      ? [media.example]
      : Object.values<Json>(media?.examples ?? {}).map((e) => deref(document, e)?.value);

  /** A valid exchange of an operation, as the plain shape the reference judges. */
  function base({ template, method, op, parameters }: Operation): PlainExchange {
    let path = template;
    const query = new URLSearchParams();
    for (const p of parameters) {
      const schema = deref(document, p.schema) ?? {};
      const value =
        schema.type === "integer"
          ? String(1 + Math.floor(r() * 900_000))
          : String(generateSync(withComponents(schema), { seed: fakerSeed++ }));
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === "query" && (p.required || r() < 0.5)) query.set(p.name, value);
    }
    // Clients add their own query strings (tracing, cache busting): the contract does not forbid them.
    if (r() < 0.3) query.set("trace", Math.floor(r() * 1e9).toString(36));
    const requestHeaders: [string, string][] = [
      [casing("user-agent", r), pick(["okhttp/4.12.0", "python-requests/2.32.3", "node-fetch/3.3.2"])],
      [casing("accept", r), "application/json, */*"],
      [casing("x-request-id", r), Math.floor(r() * 1e12).toString(16)],
    ];
    const alternative = (op.security ?? document.security ?? [])[0] ?? {};
    for (const name of Object.keys(alternative)) {
      const scheme = schemes[name];
      if (scheme?.in !== "header") continue;
      const value = /date/i.test(scheme.name)
        ? new Date(Date.UTC(2026, 10, 1 + Math.floor(r() * 28))).toISOString()
        : Math.floor(r() * 1e15)
            .toString(16)
            .padStart(32, "a");
      requestHeaders.push([casing(scheme.name, r), value]);
    }
    let requestBody: Buffer | undefined;
    const rb = deref(document, op.requestBody);
    if (rb?.content) {
      const [mediaType, media] = Object.entries<Json>(rb.content)[0] as [string, Json];
      if (mediaType === "multipart/form-data") {
        const boundary = `----form${Math.floor(r() * 1e9)}`;
        const schema = deref(document, media.schema) ?? {};
        const parts: Buffer[] = [];
        for (const name of schema.required ?? Object.keys(schema.properties ?? {}).slice(0, 1)) {
          parts.push(
            Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
            ),
            pdf(r),
            Buffer.from("\r\n"),
          );
        }
        parts.push(Buffer.from(`--${boundary}--\r\n`));
        requestBody = Buffer.concat(parts);
        requestHeaders.push([casing("content-type", r), `multipart/form-data; boundary=${boundary}`]);
      } else {
        requestBody = Buffer.from(JSON.stringify(valueFor(media.schema, examplesOf(media))));
        requestHeaders.push([
          casing("content-type", r),
          r() < 0.5 ? mediaType : `${mediaType}; charset=utf-8`,
        ]);
      }
    }
    // Mostly the success status; now and then a documented error.
    const statuses = Object.keys(op.responses).filter((s) => /^\d{3}$/.test(s));
    const status = r() < 0.8 ? (statuses.find((s) => s.startsWith("2")) ?? statuses[0]) : pick(statuses);
    const response = deref(document, op.responses[status as string]);
    const responseHeaders: [string, string][] = [
      [casing("date", r), new Date(Date.UTC(2026, 10, 22)).toUTCString()],
      [casing("x-request-id", r), Math.floor(r() * 1e12).toString(16)],
    ];
    let responseBody: Buffer | undefined;
    const contents = Object.entries<Json>(response.content ?? {});
    if (contents.length > 0) {
      const [mediaType, media] = pick(contents);
      responseHeaders.push([
        casing("content-type", r),
        mediaType === "application/json" && r() < 0.5 ? `${mediaType}; charset=utf-8` : mediaType,
      ]);
      if (mediaType === "application/json")
        responseBody = Buffer.from(JSON.stringify(valueFor(media.schema, examplesOf(media))));
      else if (mediaType === "application/zip")
        responseBody = Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), pdf(r)]);
      else responseBody = pdf(r);
    }
    for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
      const h = deref(document, raw);
      if (!h.required && r() < 0.5) continue;
      const schema = deref(document, h.schema) ?? {};
      const value =
        name.toLowerCase() === "content-disposition"
          ? 'attachment; filename="report.pdf"'
          : String(
              h.example ?? schema.example ?? generateSync(withComponents(schema), { seed: fakerSeed++ }),
            );
      responseHeaders.push([casing(name, r), value]);
    }
    const q = query.toString();
    return {
      method: method.toUpperCase(),
      url: `${pick(ORIGINS)}${path}${q ? `?${q}` : ""}`,
      requestHeaders,
      requestBody,
      status: Number(status),
      responseHeaders,
      responseBody,
    };
  }

  const dropHeader = (headers: [string, string][], name: string) => {
    const i = headers.findIndex(([n]) => n.toLowerCase() === name);
    if (i >= 0) headers.splice(i, 1);
    return i >= 0;
  };
  const setHeader = (headers: [string, string][], name: string, value: string) => {
    dropHeader(headers, name);
    headers.push([casing(name, r), value]);
  };
  const editJson = (bytes: Buffer | undefined, edit: (v: Json) => boolean): Buffer | undefined => {
    if (!bytes) return undefined;
    let value: Json;
    try {
      value = JSON.parse(bytes.toString());
    } catch {
      return undefined;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    return edit(value) ? Buffer.from(JSON.stringify(value)) : undefined;
  };
  const isJson = (headers: [string, string][]) =>
    /^application\/json/.test(headers.find(([n]) => n.toLowerCase() === "content-type")?.[1] ?? "");
  const firstKey = (v: Json) => Object.keys(v)[Math.floor(r() * Object.keys(v).length)];
  /** Edit the request's JSON object body; false where it has none or the edit does not apply. */
  const editRequest = (x: PlainExchange, edit: (v: Json) => boolean): boolean => {
    const edited = isJson(x.requestHeaders) ? editJson(x.requestBody, edit) : undefined;
    return edited !== undefined && ((x.requestBody = edited), true);
  };
  /** Edit the response's JSON object body; false where it has none or the edit does not apply. */
  const editResponse = (x: PlainExchange, edit: (v: Json) => boolean): boolean => {
    const edited = isJson(x.responseHeaders) ? editJson(x.responseBody, edit) : undefined;
    return edited !== undefined && ((x.responseBody = edited), true);
  };

  /** Mutations: each returns false when it does not apply to the exchange. */
  const MUTATIONS: Record<string, (x: PlainExchange, o: Operation) => boolean> = {
    "unknown route": (x) => ((x.url = x.url.replace(/\/api\/v(\d)\/([a-z_]+)/, "/api/v$1/$2_archive")), true),
    "wrong method": (x) => ((x.method = x.method === "DELETE" ? "PUT" : "DELETE"), true),
    "missing credential": (x, o) => {
      const alt = (o.op.security ?? document.security ?? [])[0] ?? {};
      const names = Object.keys(alt)
        .map((n) => schemes[n]?.name)
        .filter(Boolean);
      return names.length > 0 && dropHeader(x.requestHeaders, pick(names).toLowerCase());
    },
    "integer id with exponent": (x, o) =>
      o.template.includes("{id}") && ((x.url = x.url.replace(/\/(\d+)(?=\/|\?|$)/, "/1e3")), true),
    "integer id with leading zero": (x, o) =>
      o.template.includes("{id}") && ((x.url = x.url.replace(/\/(\d+)(?=\/|\?|$)/, "/007")), true),
    "integer id beyond 2^53": (x, o) =>
      o.template.includes("{id}") &&
      ((x.url = x.url.replace(/\/(\d+)(?=\/|\?|$)/, "/9007199254740993")), true),
    "request media type json-evil": (x) =>
      x.requestBody !== undefined &&
      isJson(x.requestHeaders) &&
      (setHeader(x.requestHeaders, "content-type", "application/json-evil"), true),
    "request media type text/plain": (x) =>
      x.requestBody !== undefined && (setHeader(x.requestHeaders, "content-type", "text/plain"), true),
    "request body not JSON": (x) =>
      x.requestBody !== undefined &&
      isJson(x.requestHeaders) &&
      ((x.requestBody = Buffer.from("reference=1&x=2")), true),
    "request body truncated": (x) =>
      x.requestBody !== undefined &&
      isJson(x.requestHeaders) &&
      ((x.requestBody = x.requestBody.subarray(0, x.requestBody.length - 2)), true),
    "request body invalid UTF-8": (x) => {
      if (!x.requestBody || !isJson(x.requestHeaders)) return false;
      const at = x.requestBody.indexOf('"', 2);
      if (at < 0) return false;
      x.requestBody = Buffer.concat([
        x.requestBody.subarray(0, at + 1),
        Buffer.from([0xc3, 0x28]),
        x.requestBody.subarray(at + 1),
      ]);
      return true;
    },
    "request member missing": (x) => editRequest(x, (v) => delete v[firstKey(v) as string]),
    "request member wrong type": (x) =>
      editRequest(x, (v) => {
        const k = firstKey(v);
        if (k === undefined) return false;
        v[k] = typeof v[k] === "number" ? "12" : typeof v[k] === "string" ? 12 : "x";
        return true;
      }),
    "request member undescribed": (x) => editRequest(x, (v) => ((v.internal_flags = { beta: true }), true)),
    "status undocumented": (x) => ((x.status = 418), true),
    "response missing": (x) => ((x.status = undefined), (x.responseBody = undefined), true),
    "response media type wrong": (x) =>
      x.responseBody !== undefined && (setHeader(x.responseHeaders, "content-type", "text/html"), true),
    "response body not JSON": (x) =>
      x.responseBody !== undefined &&
      isJson(x.responseHeaders) &&
      ((x.responseBody = Buffer.from("<html>502 Bad Gateway</html>")), true),
    "response member missing": (x) => editResponse(x, (v) => delete v[firstKey(v) as string]),
    "response member wrong type": (x) =>
      editResponse(x, (v) => {
        const k = firstKey(v);
        if (k === undefined) return false;
        v[k] = Array.isArray(v[k]) ? {} : [v[k]];
        return true;
      }),
    "PDF that is not one": (x) =>
      /application\/pdf/.test(
        x.responseHeaders.find(([n]) => n.toLowerCase() === "content-type")?.[1] ?? "",
      ) && ((x.responseBody = Buffer.from("<html>expired link</html>")), true),
    "Content-Disposition missing": (x) => dropHeader(x.responseHeaders, "content-disposition"),
    "error body as a success body": (x, o) => {
      if (x.status === undefined || x.status >= 400 || !isJson(x.responseHeaders)) return false;
      const errors = Object.keys(o.op.responses).filter((s) => /^4\d\d$/.test(s));
      if (errors.length === 0) return false;
      x.status = Number(pick(errors));
      x.responseBody = Buffer.from(JSON.stringify({ ok: false }));
      return true;
    },
  };
  const kinds = Object.keys(MUTATIONS);

  const entries: IndependentEntry[] = [];
  let attempts = 0;
  while (entries.length < size && attempts < size * 20) {
    attempts++;
    const o = pick(operations);
    let x: PlainExchange;
    try {
      x = base(o);
    } catch {
      stats.dropped.set(
        "valid (generation failed)",
        (stats.dropped.get("valid (generation failed)") ?? 0) + 1,
      );
      continue;
    }
    if (reference.judge(x) !== undefined) {
      stats.dropped.set("valid", (stats.dropped.get("valid") ?? 0) + 1);
      continue;
    }
    let mutation: string | undefined;
    if (r() < 1 / 3) {
      mutation = pick(kinds);
      if (!(MUTATIONS[mutation] as (x: PlainExchange, o: Operation) => boolean)(x, o)) continue;
      if (reference.judge(x) === undefined) {
        stats.dropped.set(mutation, (stats.dropped.get(mutation) ?? 0) + 1);
        continue;
      }
      stats.mutated.set(mutation, (stats.mutated.get(mutation) ?? 0) + 1);
    } else stats.valid++;
    entries.push({ line: toLine(x), mutation, operationId: o.op.operationId });
  }
  return { entries, stats };
}

/** Text bodies as text, others (files, bytes that are not UTF-8) as base64, headers as a HAR-style list. */
function body(bytes: Buffer | undefined): { body?: string; bodyEncoding?: string } {
  if (!bytes) return {};
  const text = bytes.toString("utf8");
  const isText = Buffer.from(text).equals(bytes) && !text.startsWith("%PDF") && !text.startsWith("--");
  return isText ? { body: text } : { body: bytes.toString("base64"), bodyEncoding: "base64" };
}

function toLine(x: PlainExchange): string {
  const headers = (list: [string, string][]) => list.map(([name, value]) => ({ name, value }));
  return JSON.stringify({
    request: { method: x.method, url: x.url, headers: headers(x.requestHeaders), ...body(x.requestBody) },
    ...(x.status === undefined
      ? {}
      : { response: { status: x.status, headers: headers(x.responseHeaders), ...body(x.responseBody) } }),
  });
}
