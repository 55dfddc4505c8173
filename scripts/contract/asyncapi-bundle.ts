import { type Bundle, bundleContract } from "./openapi-bundle.js";

export const ASYNCAPI_SOURCE = "asyncapi/asyncapi.yaml";
export const ASYNCAPI_COMMAND = "npm run build:asyncapi";

/**
 * Bundle the split AsyncAPI source into one document with no external `$ref`.
 * Schemas shared with openapi/ land in components/schemas under their file names, and example
 * payloads are inlined.
 */
export function bundleAsyncApi(source = ASYNCAPI_SOURCE): Bundle {
  return bundleContract(source, ASYNCAPI_COMMAND);
}
