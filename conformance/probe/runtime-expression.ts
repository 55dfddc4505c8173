// The OpenAPI runtime expressions the contract's links use: `$response.body#/json/pointer`,
// `$request.path.name`, `$request.query.name`, `$request.header.name`, `$response.header.name`.
import { unescapeToken } from "../../src/contract/json-pointer.js";
import { ownMember } from "../../src/contract/resolve-ref.js";

/** What an expression reads: the request sent and the answer's parsed body and headers. */
export interface ExpressionContext {
  pathParams: Map<string, string>;
  requestHeaders: Map<string, string>;
  responseHeaders: Record<string, string>;
  /** The parsed JSON body of the answer; undefined when it had none or it was not JSON. */
  responseBody: unknown;
}

/** A pointer is followed this many tokens at most: an answer's nesting is the peer's choice. */
const MAX_TOKENS = 32;

/** The value of an expression as a parameter string, or undefined when it names nothing there. */
export function evaluate(expression: string, context: ExpressionContext): string | undefined {
  if (expression.startsWith("$response.body#")) {
    const tokens = expression.slice("$response.body#".length).split("/").slice(1).map(unescapeToken);
    if (tokens.length > MAX_TOKENS) return undefined;
    let node: unknown = context.responseBody;
    for (const token of tokens) node = ownMember(node, token);
    return typeof node === "string" || typeof node === "number" ? String(node) : undefined;
  }
  const [source, part, ...rest] = expression.split(".");
  const name = rest.join(".");
  if (source === "$request" && part === "path") return context.pathParams.get(name);
  if (source === "$request" && part === "header") return context.requestHeaders.get(name.toLowerCase());
  if (source === "$response" && part === "header") {
    const key = name.toLowerCase();
    return Object.hasOwn(context.responseHeaders, key) ? context.responseHeaders[key] : undefined;
  }
  return undefined;
}
