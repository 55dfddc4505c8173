import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { commentHeader, generatedNotice } from "../lib/generated-header.js";
import { runTool } from "../lib/run-tool.js";

export const ASYNCAPI_SOURCE = "asyncapi/asyncapi.yaml";
export const ASYNCAPI_COMMAND = "npm run build:asyncapi";

export interface AsyncApiBundle {
  document: Record<string, unknown>;
  json: string;
  yaml: string;
}

/**
 * Bundle the split AsyncAPI source into one document with no external `$ref`.
 * Redocly bundles AsyncAPI 3 as it does OpenAPI: schemas shared with openapi/ land in
 * components/schemas under their file names, and example payloads are inlined.
 */
export function bundleAsyncApi(source = ASYNCAPI_SOURCE): AsyncApiBundle {
  const dir = mkdtempSync(join(tmpdir(), "idv-asyncapi-"));
  try {
    const out = join(dir, "bundle.json");
    const result = runTool("redocly", ["bundle", source, "--output", out, "--ext", "json"]);
    if (result.status !== 0)
      throw new Error(`redocly bundle failed for ${source}:\n${result.stderr.slice(-2000)}`);
    const bundled = JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
    return serialiseAsyncApi(bundled, source);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The committed form of the bundle: the do-not-edit notice first, then the document. */
export function serialiseAsyncApi(
  bundled: Record<string, unknown>,
  source = ASYNCAPI_SOURCE,
): AsyncApiBundle {
  const document = { "x-generated": generatedNotice(source, ASYNCAPI_COMMAND), ...bundled };
  return {
    document,
    json: `${JSON.stringify(document, null, 2)}\n`,
    yaml:
      commentHeader("#", source, ASYNCAPI_COMMAND) +
      stringify(document, { lineWidth: 0, aliasDuplicateObjects: false }),
  };
}
