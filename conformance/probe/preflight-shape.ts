// Whether a preflight answer is this API's: a status the operation documents, in a media type the
// contract gives that status. A 404 never counts: an id no deployment has and a path nothing serves
// both answer it, so only the other answers tell a wrong base URL from the right one.
import { contractOperations } from "../../src/contract/operations.js";
import type { Json } from "../../src/contract/json.js";
import type { Answer } from "./http-send.js";

/** The media types each documented status of one operation answers in (empty: no body documented). */
export type DocumentedAnswers = Map<string, string[]>;

/** The documented statuses and their media types of the operation at `method` `template`. */
export function documentedAnswers(document: Json, method: string, template: string): DocumentedAnswers {
  const op = contractOperations(document).find((o) => o.method === method && o.template === template);
  return new Map(
    (op?.responses ?? []).map((r) => [r.key.toUpperCase(), r.content.map((m) => m.mediaType.toLowerCase())]),
  );
}

/** The bare media type of a Content-Type header (`application/json; charset=utf-8` → `application/json`). */
function mediaTypeOf(header: string | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Whether `actual` is one of the documented media types (`application/*` and `*\/*` as wildcards). */
function mediaMatches(documented: string[], actual: string): boolean {
  if (documented.length === 0) return true;
  return documented.some((d) => {
    if (d === "*/*" || d === actual) return true;
    if (d.endsWith("/*")) return actual.startsWith(d.slice(0, -1));
    // `application/problem+json` answered where `application/json` is documented is still JSON.
    return d === "application/json" && /^application\/[\w.+-]*\+json$/.test(actual);
  });
}

/**
 * Why an answer is not one this API gives the operation (undefined when it is): a 404, a status the
 * operation does not document, or a media type the contract does not give that status. The words
 * never quote the answer: a peer's bytes are not printed.
 */
export function notThisApi(answer: Answer, documented: DocumentedAnswers): string | undefined {
  if (answer.status === 404) return "404";
  const status = String(answer.status);
  const media = documented.get(status) ?? documented.get(`${status[0]}XX`) ?? documented.get("DEFAULT");
  if (media === undefined) return `${status}, a status the contract does not give it`;
  return mediaMatches(media, mediaTypeOf(answer.headers["content-type"]))
    ? undefined
    : `${status} in a media type the contract does not give it`;
}

/**
 * The fix to suggest when no answer was this API's. The base URL's own path is put before every
 * path of the contract, so a prefix ending in the segment the contract's paths begin with (`/api`)
 * is said by name: that is the likely mistake.
 */
export function baseUrlHint(baseUrl: URL, templates: string[]): string {
  const prefix = baseUrl.pathname.replace(/\/+$/, "");
  const sample = templates[0] ?? "/api/v4/";
  const first = `/${sample.split("/")[1] ?? ""}`;
  if (prefix === "") return `is it this API's deployment? The contract's paths begin ${first}/`;
  const root = `${baseUrl.origin}/`;
  return first !== "/" && prefix.endsWith(first)
    ? `the contract's paths already begin ${first}, so ${prefix} should not be in the base URL (it sent ${prefix}${sample}): try --base-url ${root}`
    : `the base URL's path ${prefix} is put before every path of the contract (${prefix}${sample}): is it right? Try --base-url ${root}`;
}
