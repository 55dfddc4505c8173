// The security schemes an operation's requirement names, and the request header each travels in.
import { escapeToken } from "./json-pointer.js";
import type { Json } from "./json.js";

/** A security scheme one alternative of a requirement names. */
export interface SecurityScheme {
  /** Its name under components.securitySchemes, as the requirement writes it. */
  name: string;
  /** `/components/securitySchemes/<name>`: what coverage counts. */
  pointer: string;
  /** The scheme object, its `$ref` followed; undefined when the document defines no such scheme. */
  scheme: Json;
  /**
   * The request header that carries it, when a recorded exchange can show it: an `apiKey` scheme's
   * `name` when it sits `in: header`, `Authorization` for an `http` scheme (RFC 9110 §11.6.2).
   * Undefined for the rest (a query or cookie key, OAuth 2, OpenID Connect, mutual TLS).
   */
  header?: string;
}

/** The header a scheme travels in, when it has one of its own. */
export function schemeHeader(scheme: Json): string | undefined {
  if (scheme?.type === "apiKey" && scheme.in === "header") return String(scheme.name);
  if (scheme?.type === "http") return "Authorization";
  return undefined;
}

/**
 * Each alternative of a security requirement (a list of Security Requirement Objects) as the schemes
 * it names; anything but a list names none.
 */
export function securityOf(
  requirements: Json,
  schemeAt: (name: string, pointer: string) => { node: Json },
): SecurityScheme[][] {
  if (!Array.isArray(requirements)) return [];
  return requirements.map((requirement: Json) =>
    Object.keys(requirement ?? {}).map((name) => {
      const pointer = `/components/securitySchemes/${escapeToken(name)}`;
      const scheme = schemeAt(name, pointer).node;
      const header = schemeHeader(scheme);
      return header === undefined ? { name, pointer, scheme } : { name, pointer, scheme, header };
    }),
  );
}
