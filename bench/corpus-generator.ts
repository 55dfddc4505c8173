// The valid exchanges of the independent corpus (corpus-independent.ts): bodies from the schemas
// (seeded json-schema-faker) and the contract's examples, header names in the casings clients really
// send, absolute URLs with query strings. One seeded random stream drives every choice, so a seed
// always gives the same corpus.
import { generateSync } from "json-schema-faker";
import { resolveRef as deref } from "../scripts/lib/json-ref.js";
import type { PlainExchange } from "./corpus-reference.js";
import { seededRandom } from "./seeded-random.js";
import type { Json } from "../src/contract/json.js";
import { HTTP_METHODS } from "../src/contract/http-methods.js";

/** What the corpus is made of, for the benchmark's description. */
export interface CorpusStats {
  valid: number;
  mutated: Map<string, number>;
  /** Samples the reference validator did not confirm, by what they were meant to be. */
  dropped: Map<string, number>;
  fromExamples: number;
  fromFaker: number;
}

/** One operation of the contract, as the generator calls it. */
export interface Operation {
  template: string;
  method: string;
  op: Json;
  /** Path-level and operation-level parameters, resolved. */
  parameters: Json[];
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

/** The operations of a bundled document, each with its parameters resolved. */
function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths ?? {}))
    for (const method of HTTP_METHODS) {
      if (!item[method]) continue;
      const parameters = [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: Json) =>
        deref(document, p),
      );
      operations.push({ template, method, op: item[method], parameters });
    }
  return operations;
}

/** Makes valid exchanges of a contract from one seed, counting where their bodies came from. */
export class CorpusGenerator {
  readonly r: () => number;
  readonly stats: CorpusStats = {
    valid: 0,
    mutated: new Map(),
    dropped: new Map(),
    fromExamples: 0,
    fromFaker: 0,
  };
  readonly operations: Operation[];
  readonly schemes: Json;
  private fakerSeed: number;

  constructor(
    readonly document: Json,
    seed: number,
  ) {
    this.r = seededRandom(seed);
    this.operations = operationsOf(document);
    this.schemes = document.components?.securitySchemes ?? {};
    this.fakerSeed = seed * 1000;
  }

  /** One element of a list, chosen by the seeded stream. */
  pick<T>(list: T[]): T {
    return list[Math.floor(this.r() * list.length)] as T;
  }

  /** A header name in a casing a client might send. */
  casing(name: string): string {
    return casing(name, this.r);
  }

  /** json-schema-faker's value for a schema of the document, with the next faker seed. */
  private fake(schema: Json, options: { optionalsProbability?: number } = {}): unknown {
    const withComponents = { ...deref(this.document, schema), components: this.document.components };
    return generateSync(withComponents, { seed: this.fakerSeed++, ...options });
  }

  /** A value for a schema: an example of it half the time, else json-schema-faker's. */
  private valueFor(schema: Json, examples: Json[]): unknown {
    if (examples.length > 0 && this.r() < 0.5) {
      this.stats.fromExamples++;
      return structuredClone(this.pick(examples));
    }
    this.stats.fromFaker++;
    return this.fake(schema, { optionalsProbability: 0.6 });
  }

  private examplesOf(media: Json): Json[] {
    return media?.example !== undefined
      ? [media.example]
      : Object.values<Json>(media?.examples ?? {}).map((e) => deref(this.document, e)?.value);
  }

  /** A valid exchange of an operation, as the plain shape the reference judges. */
  exchange(o: Operation): PlainExchange {
    const request = this.request(o);
    const response = this.response(o.op);
    const q = request.query.toString();
    return {
      method: o.method.toUpperCase(),
      url: `${this.pick(ORIGINS)}${request.path}${q ? `?${q}` : ""}`,
      requestHeaders: request.headers,
      requestBody: request.body,
      status: response.status,
      responseHeaders: response.headers,
      responseBody: response.body,
    };
  }

  /** The request: path and query parameters, the client's headers, the credentials, the body. */
  private request({ template, op, parameters }: Operation) {
    const { document, r } = this;
    let path = template;
    const query = new URLSearchParams();
    for (const p of parameters) {
      const schema = deref(document, p.schema) ?? {};
      const value =
        schema.type === "integer" ? String(1 + Math.floor(r() * 900_000)) : String(this.fake(schema));
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === "query" && (p.required || r() < 0.5)) query.set(p.name, value);
    }
    // Clients add their own query strings (tracing, cache busting): the contract does not forbid them.
    if (r() < 0.3) query.set("trace", Math.floor(r() * 1e9).toString(36));
    const headers: [string, string][] = [
      [this.casing("user-agent"), this.pick(["okhttp/4.12.0", "python-requests/2.32.3", "node-fetch/3.3.2"])],
      [this.casing("accept"), "application/json, */*"],
      [this.casing("x-request-id"), Math.floor(r() * 1e12).toString(16)],
    ];
    const alternative = (op.security ?? document.security ?? [])[0] ?? {};
    for (const name of Object.keys(alternative)) {
      const scheme = this.schemes[name];
      if (scheme?.in !== "header") continue;
      const value = /date/i.test(scheme.name)
        ? new Date(Date.UTC(2026, 10, 1 + Math.floor(r() * 28))).toISOString()
        : Math.floor(r() * 1e15)
            .toString(16)
            .padStart(32, "a");
      headers.push([this.casing(scheme.name), value]);
    }
    const body = this.requestBody(op, headers);
    return { path, query, headers, body };
  }

  /** The request body of an operation (a multipart form of PDFs, or JSON), its content type added to `headers`. */
  private requestBody(op: Json, headers: [string, string][]): Buffer | undefined {
    const { document, r } = this;
    const rb = deref(document, op.requestBody);
    if (!rb?.content) return undefined;
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
      headers.push([this.casing("content-type"), `multipart/form-data; boundary=${boundary}`]);
      return Buffer.concat(parts);
    }
    const body = Buffer.from(JSON.stringify(this.valueFor(media.schema, this.examplesOf(media))));
    headers.push([this.casing("content-type"), r() < 0.5 ? mediaType : `${mediaType}; charset=utf-8`]);
    return body;
  }

  /** The response: mostly the success status, now and then a documented error; its headers and body. */
  private response(op: Json) {
    const { document, r } = this;
    const statuses = Object.keys(op.responses).filter((s) => /^\d{3}$/.test(s));
    const status = r() < 0.8 ? (statuses.find((s) => s.startsWith("2")) ?? statuses[0]) : this.pick(statuses);
    const response = deref(document, op.responses[status as string]);
    const headers: [string, string][] = [
      [this.casing("date"), new Date(Date.UTC(2026, 10, 22)).toUTCString()],
      [this.casing("x-request-id"), Math.floor(r() * 1e12).toString(16)],
    ];
    let body: Buffer | undefined;
    const contents = Object.entries<Json>(response.content ?? {});
    if (contents.length > 0) {
      const [mediaType, media] = this.pick(contents);
      headers.push([
        this.casing("content-type"),
        mediaType === "application/json" && r() < 0.5 ? `${mediaType}; charset=utf-8` : mediaType,
      ]);
      if (mediaType === "application/json")
        body = Buffer.from(JSON.stringify(this.valueFor(media.schema, this.examplesOf(media))));
      else if (mediaType === "application/zip")
        body = Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), pdf(r)]);
      else body = pdf(r);
    }
    for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
      const h = deref(document, raw);
      if (!h.required && r() < 0.5) continue;
      const schema = deref(document, h.schema) ?? {};
      const value =
        name.toLowerCase() === "content-disposition"
          ? 'attachment; filename="report.pdf"'
          : String(h.example ?? schema.example ?? this.fake(schema));
      headers.push([this.casing(name), value]);
    }
    return { status: Number(status), headers, body };
  }
}
