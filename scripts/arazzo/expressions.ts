// The runtime expressions of a step (criteria, outputs, parameter and replacement values, the
// correlation of an awaited event): each must name something that exists, and a literal compared
// with a member must be a value that member allows.
import type { Json } from "../lib/json-ref.js";
import { show } from "../../src/arazzo/documents.js";
import { mayHold, schemasAtPointer } from "./schema-path.js";

/** What an expression of one step may refer to. */
export interface ExpressionScope {
  document: Json;
  /** The outputs each step before this one (and this one, for its awaited events) declares. */
  outputs: Map<string, Set<string>>;
  /** The schema of the answer the step expects, when it is JSON. */
  response?: Json;
  /** The schema of the request body the step sends, when it is JSON. */
  request?: Json;
  /** The schema of the awaited event's payload (x-receive only). */
  message?: Json;
  /** The AsyncAPI document the message schema lives in. */
  asyncapi?: Json;
}

const EXPRESSION = /\$[A-Za-z][\w.-]*(?:#[^\s)]*)?/g;
const COMPARISON = /(\$[A-Za-z][\w.-]*(?:#[^\s)]*)?)\s*(?:==|!=)\s*'([^']*)'/g;

/** The schema and document a `$…body#/…` or `$message.payload#/…` expression points into. */
function target(
  expression: string,
  scope: ExpressionScope,
): { doc: Json; schema: Json; pointer: string } | string {
  const [head, pointer = ""] = expression.split("#") as [string, string?];
  if (expression.includes("#") && pointer !== "" && !pointer.startsWith("/"))
    return `\`${expression}\`: the part after # must be a JSON pointer`;
  const where =
    head === "$response.body"
      ? { doc: scope.document, schema: scope.response, what: "expected JSON response" }
      : head === "$request.body"
        ? { doc: scope.document, schema: scope.request, what: "JSON request body" }
        : head === "$message.payload"
          ? { doc: scope.asyncapi, schema: scope.message, what: "awaited event" }
          : undefined;
  if (!where) return `\`${expression}\` is not an expression these documents use`;
  if (!where.schema) return `\`${expression}\`: the step has no ${where.what}`;
  return { doc: where.doc, schema: where.schema, pointer };
}

/** Problems of one expression, in words; [] when it names something that exists. */
function expressionProblems(expression: string, scope: ExpressionScope): string[] {
  if (expression === "$statusCode") return [];
  const output = /^\$steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
  if (output) {
    const [, step, name] = output as unknown as [string, string, string];
    if (!scope.outputs.has(step)) return [`\`${expression}\`: no step \`${step}\` before this one`];
    return scope.outputs.get(step)!.has(name)
      ? []
      : [`\`${expression}\`: step \`${step}\` has no output \`${name}\``];
  }
  if (/^\$request\.path\.[\w-]+$/.test(expression)) return [];
  const t = target(expression, scope);
  if (typeof t === "string") return [t];
  return schemasAtPointer(t.doc, t.schema, t.pointer).length > 0
    ? []
    : [`\`${expression}\`: the schema has no member \`${t.pointer}\``];
}

/** Problems of every expression in one text (a condition, an output, a value). */
export function textProblems(text: unknown, scope: ExpressionScope): string[] {
  if (typeof text !== "string") return [];
  const problems = [...text.matchAll(EXPRESSION)].flatMap((m) => expressionProblems(m[0], scope));
  for (const [, expression, literal] of text.matchAll(COMPARISON) as Iterable<[string, string, string]>) {
    const t = target(expression, scope);
    if (typeof t === "string") continue;
    if (!mayHold(t.doc, schemasAtPointer(t.doc, t.schema, t.pointer), literal))
      problems.push(`\`${expression}\` is never '${literal}' in the schema`);
  }
  return problems;
}

/** The status codes a step's success criteria require (`$statusCode == 200`). */
export function expectedStatuses(step: Json): string[] {
  const criteria: Json[] = Array.isArray(step?.successCriteria) ? step.successCriteria : [];
  return criteria.flatMap((c) => {
    const m = /^\s*\$statusCode\s*==\s*(\d{3})\s*$/.exec(show(c?.condition ?? ""));
    return m ? [m[1] as string] : [];
  });
}
