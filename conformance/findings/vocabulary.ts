// What a conformance report may name: the contract's words (src/vocabulary.ts) and the standard
// HTTP methods.
export { Vocabulary } from "../../src/vocabulary.js";

/** Methods a report may name; any other recorded method is shown as OTHER_METHOD. */
const HTTP_METHODS = new Set([
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE",
  "CONNECT",
]);

/** The word shown for a recorded method that is not a standard one. */
export const OTHER_METHOD = "(other method)";

/** A recorded method upper-cased, or OTHER_METHOD when it is not a standard one. */
export function safeMethod(method: string): string {
  const upper = method.toUpperCase();
  return HTTP_METHODS.has(upper) ? upper : OTHER_METHOD;
}
