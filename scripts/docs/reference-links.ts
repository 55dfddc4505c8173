/**
 * Links into the API reference. Redoc (Redocly CLI 2.77) routes inside api.html by its fragment:
 * `api.html#/<tag slug>/<operationId in lower case>`, `#/section/<heading slug>`; its sidebar
 * prints the same routes as `/<tag slug>…` paths, which the static server sends back to api.html.
 */
import { slug } from "./html.js";
import type { Json } from "../lib/json-ref.js";

/** The reference's link to an operation (or an OpenAPI webhook) by its first tag and operationId. */
export function operationLink(
  document: Json,
  section: "paths" | "webhooks",
  path: string,
  method: string,
): string {
  const op = document?.[section]?.[path]?.[method];
  const tag = Array.isArray(op?.tags) ? op.tags[0] : undefined;
  if (typeof tag !== "string" || typeof op?.operationId !== "string") return "api.html";
  return `api.html#/${slug(tag)}/${op.operationId.toLowerCase()}`;
}

/** The first path segments of the reference's routes: one per tag, and Redoc's `section`. */
export function referenceRoutePrefixes(document: Json): string[] {
  const tags = new Set<string>(["section"]);
  for (const tag of Array.isArray(document?.tags) ? document.tags : []) {
    if (typeof tag?.name === "string") tags.add(slug(tag.name));
  }
  for (const section of ["paths", "webhooks"] as const) {
    for (const item of Object.values<Json>(document?.[section] ?? {})) {
      for (const op of Object.values<Json>(item ?? {})) {
        for (const tag of Array.isArray(op?.tags) ? op.tags : [])
          if (typeof tag === "string") tags.add(slug(tag));
      }
    }
  }
  return [...tags];
}
