import { escapeToken, unescapeToken } from "../../src/contract/json-pointer.js";
import { isHttpMethod } from "../lib/http-methods.js";
import type { Json } from "../../src/contract/json.js";

/** One `x-gap` mark: the document's words, the choice made, and where it sits. */
export interface GapMark {
  quote: string;
  choice: string;
  /** JSON pointer of the node carrying the mark. */
  pointer: string;
  /** The same place in words: "POST /api/v2/send_text › responses › 200". */
  where: string;
}

/**
 * Every `x-gap` of a contract, in document order. A mark is one `{quote, choice}` object or a list
 * of them (openapi/extensions.md); anything else is reported with its pointer, never skipped.
 */
export function collectGaps(document: Json): GapMark[] {
  const out: GapMark[] = [];
  const walk = (node: Json, tokens: string[]): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        walk(item, [...tokens, String(index)]);
      });
      return;
    }
    for (const [key, value] of Object.entries<Json>(node)) {
      if (key === "x-gap") {
        const pointer = tokens.length ? `/${tokens.map(escapeToken).join("/")}` : "";
        const marks = Array.isArray(value) ? value : [value];
        for (const mark of marks) {
          if (typeof mark?.quote !== "string" || typeof mark?.choice !== "string") {
            throw new Error(`x-gap at ${pointer || "/"} must be {quote, choice} or a list of them`);
          }
          out.push({
            quote: mark.quote,
            choice: mark.choice,
            pointer,
            where: describePointer(document, tokens),
          });
        }
      } else {
        walk(value, [...tokens, key]);
      }
    }
  };
  walk(document, []);
  return out;
}

/** Say in words where a pointer (given as decoded tokens) points in an OpenAPI or AsyncAPI document. */
export function describePointer(document: Json, tokens: string[]): string {
  const [head, second, third, ...rest] = tokens;
  const tail = (parts: string[]): string => parts.filter((t) => t !== "properties").join(" › ");
  const join = (label: string, parts: string[]): string =>
    parts.length ? `${label} › ${tail(parts)}` : label;
  if (head === undefined) return "the whole document";
  if (head === "info") return join("document info", tokens.slice(1));
  if (head === "servers" && second !== undefined) {
    const name =
      document?.servers && !Array.isArray(document.servers)
        ? `server ${second}`
        : `server ${Number(second) + 1}`;
    return join(name, tokens.slice(2));
  }
  if ((head === "paths" || head === "webhooks") && second !== undefined) {
    const label = head === "paths" ? second : `webhook ${second}`;
    if (third !== undefined && isHttpMethod(third)) return join(`${third.toUpperCase()} ${label}`, rest);
    return join(label, tokens.slice(2));
  }
  if (head === "channels" && second !== undefined) return join(`channel ${second}`, tokens.slice(2));
  if (head === "operations" && second !== undefined) return join(`operation ${second}`, tokens.slice(2));
  if (head === "components" && second !== undefined && third !== undefined) {
    const kinds: Record<string, string> = {
      schemas: "schema",
      securitySchemes: "security scheme",
      responses: "response",
      parameters: "parameter",
      headers: "header",
      examples: "example",
      requestBodies: "request body",
      messages: "message",
      messageTraits: "message trait",
      operationTraits: "operation trait",
      channels: "channel",
      operations: "operation",
      correlationIds: "correlation id",
    };
    return join(`${kinds[second] ?? second} ${third}`, rest);
  }
  return tail(tokens);
}

/** Parse a JSON pointer back into decoded tokens. */
export function pointerTokens(pointer: string): string[] {
  return pointer === "" ? [] : pointer.slice(1).split("/").map(unescapeToken);
}
