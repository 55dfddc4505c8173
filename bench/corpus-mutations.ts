// The mutations of the independent corpus (corpus-independent.ts): each breaks a valid exchange in
// one way the suite must report, and returns false when it does not apply to the exchange.
import type { PlainExchange } from "./corpus-reference.js";
import type { CorpusGenerator, Operation } from "./corpus-generator.js";
import type { Json } from "../src/contract/json.js";

/** One way to break an exchange; false when it does not apply. */
export type Mutation = (x: PlainExchange, o: Operation) => boolean;

type Headers = [string, string][];

function dropHeader(headers: Headers, name: string): boolean {
  const i = headers.findIndex(([n]) => n.toLowerCase() === name);
  if (i >= 0) headers.splice(i, 1);
  return i >= 0;
}

function setHeader(g: CorpusGenerator, headers: Headers, name: string, value: string): void {
  dropHeader(headers, name);
  headers.push([g.casing(name), value]);
}

/** A JSON object body edited in place; undefined where it has none or the edit does not apply. */
function editJson(bytes: Buffer | undefined, edit: (v: Json) => boolean): Buffer | undefined {
  if (!bytes) return undefined;
  let value: Json;
  try {
    value = JSON.parse(bytes.toString());
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return edit(value) ? Buffer.from(JSON.stringify(value)) : undefined;
}

const isJson = (headers: Headers) =>
  /^application\/json/.test(headers.find(([n]) => n.toLowerCase() === "content-type")?.[1] ?? "");

/** Edit the request's JSON object body; false where it has none or the edit does not apply. */
function editRequest(x: PlainExchange, edit: (v: Json) => boolean): boolean {
  const edited = isJson(x.requestHeaders) ? editJson(x.requestBody, edit) : undefined;
  return edited !== undefined && ((x.requestBody = edited), true);
}

/** Edit the response's JSON object body; false where it has none or the edit does not apply. */
function editResponse(x: PlainExchange, edit: (v: Json) => boolean): boolean {
  const edited = isJson(x.responseHeaders) ? editJson(x.responseBody, edit) : undefined;
  return edited !== undefined && ((x.responseBody = edited), true);
}

/** The mutations by name, drawing their choices from the generator's seeded stream. */
export function mutations(g: CorpusGenerator): Record<string, Mutation> {
  const { document, schemes, r } = g;
  const firstKey = (v: Json) => Object.keys(v)[Math.floor(r() * Object.keys(v).length)];
  return {
    "unknown route": (x) => ((x.url = x.url.replace(/\/api\/v(\d)\/([a-z_]+)/, "/api/v$1/$2_archive")), true),
    "wrong method": (x) => ((x.method = x.method === "DELETE" ? "PUT" : "DELETE"), true),
    "missing credential": (x, o) => {
      const alt = (o.op.security ?? document.security ?? [])[0] ?? {};
      const names = Object.keys(alt)
        .map((n) => schemes[n]?.name)
        .filter(Boolean);
      return names.length > 0 && dropHeader(x.requestHeaders, g.pick(names).toLowerCase());
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
      (setHeader(g, x.requestHeaders, "content-type", "application/json-evil"), true),
    "request media type text/plain": (x) =>
      x.requestBody !== undefined && (setHeader(g, x.requestHeaders, "content-type", "text/plain"), true),
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
      x.responseBody !== undefined && (setHeader(g, x.responseHeaders, "content-type", "text/html"), true),
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
      x.status = Number(g.pick(errors));
      x.responseBody = Buffer.from(JSON.stringify({ ok: false }));
      return true;
    },
  };
}
