// The recording's headers. A header's name and value are the sender's text, and a sender can put
// anything there (a name, a token), so nothing is kept because of the header it came in: a name is
// kept when the contract or HTTP itself defines it, a value when it is one the contract or HTTP
// describes (a media type the contract names, a known coding, an enum value, a timestamp in the
// contract's format); each element of a list is judged alone. Any other value of a header the
// contract describes (a parameter, a response header) becomes its stand-in, so the check judges the
// recording as it judged the traffic; a credential and anything else is `[redacted]`.
import { REDACTED } from "../../src/redact.js";
import type { Vocabulary } from "../../src/vocabulary.js";
import { walkContract } from "../../src/contract/walk.js";
import { mediaTypeEssence } from "../findings/redact.js";
import type { RecordingValues } from "./har-stand-ins.js";
import type { Json } from "../../src/contract/json.js";

/** Fields HTTP defines that traffic with the service carries, in their usual spelling. */
const HTTP_FIELDS = [
  "Accept",
  "Accept-Encoding",
  "Accept-Language",
  "Allow",
  "Authorization",
  "Cache-Control",
  "Content-Disposition",
  "Content-Encoding",
  "Content-Language",
  "Content-Length",
  "Content-Location",
  "Content-Type",
  "Cookie",
  "Date",
  "ETag",
  "Expect",
  "Expires",
  "If-Match",
  "If-Modified-Since",
  "If-None-Match",
  "If-Unmodified-Since",
  "Last-Modified",
  "Location",
  "Origin",
  "Pragma",
  "Prefer",
  "Preference-Applied",
  "Range",
  "Referer",
  "Retry-After",
  "Server",
  "Set-Cookie",
  "User-Agent",
  "Vary",
  "Via",
  "WWW-Authenticate",
];

/** Content codings and transfer codings HTTP registers, and `*`. */
const CODINGS = new Set([
  "gzip",
  "x-gzip",
  "deflate",
  "br",
  "zstd",
  "compress",
  "identity",
  "chunked",
  "trailers",
  "*",
]);

/** Charsets a Content-Type may name in the recording; any other parameter value is the sender's. */
const CHARSETS = new Set(["utf-8", "utf8", "us-ascii", "iso-8859-1", "latin1"]);

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"]);

/** Cache-Control directives without an argument, and those whose argument is a number of seconds. */
const CACHE_FLAGS = new Set([
  "no-cache",
  "no-store",
  "no-transform",
  "only-if-cached",
  "must-revalidate",
  "proxy-revalidate",
  "must-understand",
  "private",
  "public",
  "immutable",
  "max-stale",
]);
const CACHE_SECONDS = new Set([
  "max-age",
  "s-maxage",
  "max-stale",
  "min-fresh",
  "stale-while-revalidate",
  "stale-if-error",
]);

/** A weight (`q=0.5`) as HTTP writes one. */
const QVALUE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i;
const SECONDS = /^\d{1,10}$/;
/** An RFC 3339 UTC timestamp: the contract's Svc-Date (its x-gap choice). */
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
/** An HTTP date (IMF-fixdate, RFC 9110 §5.6.7). */
const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const isTimestamp = (value: string): boolean => UTC_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));

/** What the contract says of a header it names: its spelling, and the values it lists (enum, const). */
interface ContractHeader {
  name: string;
  values?: Set<string>;
  format?: string;
}

/** Resolve a local `$ref` (once: a chain of refs is the contract author's, and short). */
function deref(document: Json, node: Json): Json {
  const ref = node?.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return node;
  let at: Json = document;
  for (const token of ref.slice(2).split("/")) at = at?.[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  return at;
}

function describe(name: string, schema: Json): ContractHeader {
  const values = new Set<string>();
  for (const v of Array.isArray(schema?.enum) ? schema.enum : []) if (typeof v === "string") values.add(v);
  if (typeof schema?.const === "string") values.add(schema.const);
  return {
    name,
    ...(values.size > 0 ? { values } : {}),
    ...(typeof schema?.format === "string" ? { format: schema.format } : {}),
  };
}

/**
 * The headers that carry credentials (the security schemes' API keys), by lower-case name, as the
 * contract spells them: one pass over the schemes gives both what is a credential and its spelling.
 */
function credentialHeaders(document: Json): Map<string, ContractHeader> {
  const out = new Map<string, ContractHeader>();
  for (const scheme of Object.values<Json>(document?.components?.securitySchemes ?? {})) {
    const s = deref(document, scheme);
    if (s?.type === "apiKey" && s.in === "header" && typeof s.name === "string")
      out.set(s.name.toLowerCase(), { name: s.name });
  }
  return out;
}

/** The headers the contract names (security schemes, header parameters, response headers) by lower-case name. */
function contractHeaders(
  document: Json,
  credentials: Map<string, ContractHeader>,
): Map<string, ContractHeader> {
  const out = new Map<string, ContractHeader>(credentials);
  walkContract([document?.paths, document?.components, document?.webhooks], (node) => {
    if (node.in === "header" && typeof node.name === "string")
      out.set(node.name.toLowerCase(), describe(node.name, deref(document, node.schema)));
    const headers = node.headers;
    if (headers && typeof headers === "object" && !Array.isArray(headers))
      for (const [name, header] of Object.entries<Json>(headers))
        if (!out.has(name.toLowerCase()))
          out.set(name.toLowerCase(), describe(name, deref(document, deref(document, header)?.schema)));
  });
  return out;
}

/** The names of the contract's examples: what `Prefer: example=NAME` may name. */
function exampleNames(document: Json): Set<string> {
  const out = new Set<string>();
  const stack: Json[] = [document?.paths, document?.components];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    for (const [key, value] of Object.entries<Json>(node)) {
      if (key === "examples" && value && typeof value === "object" && !Array.isArray(value)) {
        for (const name of Object.keys(value)) out.add(name);
        continue;
      }
      if (key !== "example") stack.push(value);
    }
  }
  return out;
}

/** Each comma-separated element judged by `keep`: kept as it returns, or `[redacted]`. */
const eachElement = (value: string, keep: (element: string) => string | undefined): string =>
  value
    .split(",")
    .map((element) => keep(element.trim()) ?? REDACTED)
    .join(", ");

/** `token;q=…` with a token `known` accepts, and no parameter but a weight. */
function weighted(element: string, known: (token: string) => string | undefined): string | undefined {
  const [token = "", ...params] = element.split(";").map((p) => p.trim());
  const kept = known(token.toLowerCase());
  if (kept === undefined) return undefined;
  return params.every((p) => QVALUE.test(p))
    ? [kept, ...params.map((p) => p.toLowerCase())].join(";")
    : undefined;
}

/** Records a message's headers as the contract and HTTP describe them, nothing else a sender wrote. */
export class HeaderRedactor {
  private readonly spelling = new Map<string, string>();
  private readonly contract: Map<string, ContractHeader>;
  private readonly credentials: Set<string>;
  private readonly examples: Set<string>;

  /** @param values the recording's stand-ins; without them, every value not kept is `[redacted]` */
  constructor(
    document: Json,
    private readonly words: Vocabulary,
    private readonly values?: RecordingValues,
  ) {
    for (const field of HTTP_FIELDS) this.spelling.set(field.toLowerCase(), field);
    const credentials = credentialHeaders(document);
    this.credentials = new Set(credentials.keys());
    this.contract = contractHeaders(document, credentials);
    for (const [lower, header] of this.contract) this.spelling.set(lower, header.name);
    this.examples = exampleNames(document);
  }

  /** The pairs as recorded: known names in their usual spelling, others `[redacted]1`, `[redacted]2`, … */
  redact(headers: [string, string][]): { name: string; value: string }[] {
    let unknown = 0;
    return headers.map(([name, value]) => {
      const lower = name.toLowerCase();
      const known = this.spelling.get(lower);
      if (known === undefined) return { name: `${REDACTED}${++unknown}`, value: REDACTED };
      return { name: known, value: this.value(lower, value) };
    });
  }

  /** A value as recorded: kept where the field's grammar and the contract describe it, else redacted. */
  private value(name: string, value: string): string {
    const words = this.words;
    // An empty value holds nothing, and the checks tell it from a missing or a present one.
    if (value === "") return value;
    switch (name) {
      case "content-type":
        return this.contentType(value);
      case "content-length":
        return /^\d{1,15}$/.test(value.trim()) ? value.trim() : REDACTED;
      case "content-encoding":
      case "accept-encoding":
      case "transfer-encoding":
        return eachElement(value, (e) => weighted(e, (t) => (CODINGS.has(t) ? t : undefined)));
      case "accept":
        return eachElement(value, (e) => weighted(e, (t) => this.mediaRange(t)));
      case "cache-control":
      case "pragma":
        return eachElement(value, (e) => {
          const [directive = "", argument] = e.toLowerCase().split("=", 2);
          if (argument === undefined) return CACHE_FLAGS.has(directive) ? directive : undefined;
          return CACHE_SECONDS.has(directive) && SECONDS.test(argument)
            ? `${directive}=${argument}`
            : undefined;
        });
      case "prefer":
      case "preference-applied":
        return eachElement(value, (e) => this.preference(e));
      case "allow":
        return eachElement(value, (e) => (METHODS.has(e.toUpperCase()) ? e.toUpperCase() : undefined));
      case "vary":
        return eachElement(value, (e) => (e === "*" ? e : this.spelling.get(e.toLowerCase())));
      case "expect":
        return value.trim().toLowerCase() === "100-continue" ? "100-continue" : REDACTED;
      case "retry-after":
        return SECONDS.test(value.trim()) || HTTP_DATE.test(value.trim()) ? value.trim() : REDACTED;
      case "date":
      case "expires":
      case "last-modified":
      case "if-modified-since":
      case "if-unmodified-since":
        return HTTP_DATE.test(value.trim()) ? value.trim() : REDACTED;
      case "content-disposition":
        return this.disposition(value);
      case "svc-date":
        // The contract's format for it (its x-gap choice): a timestamp, not personal data.
        return isTimestamp(value.trim()) ? value.trim() : REDACTED;
    }
    if (name === "x-workflow-event-type")
      // Its schema lists no values (new ones may come); one the contract writes elsewhere is its word.
      return words.isValue(value) ? value : (this.values?.value(value) ?? REDACTED);
    const header = this.contract.get(name);
    if (header?.values?.has(value)) return value;
    if (header?.format === "date-time" && isTimestamp(value)) return value;
    // A credential's presence is what the checks judge: it is never given a stand-in of its shape.
    if (header && this.values && !this.credentials.has(name)) return this.values.value(value);
    return REDACTED;
  }

  /** A Content-Type: a media type the contract or common traffic names, a known charset, the fact of a boundary. */
  private contentType(value: string): string {
    const essence = mediaTypeEssence(value);
    if (essence === undefined) return REDACTED;
    const params = value
      .split(";")
      .slice(1)
      .map((param) => {
        const [rawName = "", ...rest] = param.split("=");
        const name = rawName.trim().toLowerCase();
        const paramValue = rest.join("=").trim().replace(/^"|"$/g, "").toLowerCase();
        if (name === "charset")
          return CHARSETS.has(paramValue) ? `charset=${paramValue}` : `charset=${REDACTED}`;
        // A parameter's name is the sender's too; only the boundary a multipart body needs is named.
        return name === "boundary" ? `boundary=${REDACTED}` : undefined;
      })
      .filter((p) => p !== undefined);
    const type = this.values ? this.values.mediaType(essence) : this.words.mediaType(essence);
    return [type, ...params].join("; ");
  }

  /** A media range of Accept: `*\/*`, `type/*` or a media type the contract or common traffic names. */
  private mediaRange(range: string): string | undefined {
    if (range === "*/*") return range;
    const wildcard = /^([a-z]+)\/\*$/.exec(range);
    if (wildcard)
      return ["application", "text", "image", "multipart"].includes(wildcard[1] as string)
        ? range
        : undefined;
    const essence = mediaTypeEssence(range);
    return essence !== undefined && this.words.mediaType(essence) === essence ? essence : undefined;
  }

  /** A preference of RFC 7240 or of the mock (`code=404`, `example=NAME` of the contract's, `dynamic=true`). */
  private preference(element: string): string | undefined {
    const [rawName = "", ...rest] = element.split("=");
    const name = rawName.trim().toLowerCase();
    const argument = rest.join("=").trim().replace(/^"|"$/g, "");
    if (rest.length === 0) return name === "respond-async" ? name : undefined;
    if (name === "code") return /^[1-5]\d\d$/.test(argument) ? `code=${argument}` : undefined;
    if (name === "example") return this.examples.has(argument) ? `example=${argument}` : undefined;
    if (name === "dynamic")
      return argument === "true" || argument === "false" ? `dynamic=${argument}` : undefined;
    if (name === "return")
      return argument === "minimal" || argument === "representation" ? `return=${argument}` : undefined;
    if (name === "handling")
      return argument === "strict" || argument === "lenient" ? `handling=${argument}` : undefined;
    if (name === "wait") return SECONDS.test(argument) ? `wait=${argument}` : undefined;
    return undefined;
  }

  /** A Content-Disposition: its type when HTTP defines it, and which parameters it had (values redacted). */
  private disposition(value: string): string {
    const [type = "", ...params] = value.split(";").map((p) => p.trim());
    const lower = type.toLowerCase();
    if (!["inline", "attachment", "form-data"].includes(lower)) return REDACTED;
    const kept = params
      .map((p) => p.split("=", 1)[0]?.trim().toLowerCase())
      .filter((n) => n === "filename" || n === "filename*" || n === "name")
      .map((n) => `${n}=${REDACTED}`);
    return [lower, ...kept].join("; ");
  }
}
