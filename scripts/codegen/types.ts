import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

/**
 * The openapi-typescript output for a bundled contract, exactly as its CLI writes it with
 * `--default-non-nullable=false`: a request member with a default stays optional for the caller.
 */
export async function generateTypes(document: object): Promise<string> {
  // A JSON copy: openapi-typescript annotates the objects it walks.
  const nodes = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0], {
    silent: true,
    defaultNonNullable: false,
  });
  return `${COMMENT_HEADER}${astToString(nodes)}`;
}
