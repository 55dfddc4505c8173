import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTool } from "../lib/run-tool.js";
import { findExternalLoads, localiseAssets } from "./offline.js";

/**
 * The OpenAPI reference page: Redocly's standalone page with its scripts inlined
 * (`--inlineBundle`), its CDN asset URLs made local, then checked for any remaining external load.
 */
export function buildApiReference(openapiPath: string): string {
  const dir = mkdtempSync(join(tmpdir(), "idv-docs-"));
  try {
    const out = join(dir, "api.html");
    const result = runTool("redocly", [
      "build-docs",
      openapiPath,
      "--inlineBundle",
      "--output",
      out,
      "--title",
      "Identity Verification Service API reference",
    ]);
    if (result.status !== 0) {
      throw new Error(
        `redocly build-docs failed on ${openapiPath}:\n${(result.stderr || result.stdout).trim()}`,
      );
    }
    const html = localiseAssets(readFileSync(out, "utf8"));
    const loads = findExternalLoads(html);
    if (loads.length > 0) {
      const list = loads.map((load) => `  ${load.url}  in  ${load.context.replace(/\s+/g, " ")}`).join("\n");
      throw new Error(
        `api.html would load from the network; add a rewrite in scripts/docs/offline.ts:\n${list}`,
      );
    }
    return html;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
