// The Arazzo documents the package ships, as the probe reads them at run time: generated/arazzo.json,
// made from arazzo/*.arazzo.yaml by `npm run build:arazzo`, so that no YAML parser is needed.
import bundled from "../../generated/arazzo.json" with { type: "json" };
import type { ArazzoFile } from "./documents.js";

/** Every Arazzo document of the package, in file-name order. */
export function bundledArazzo(): ArazzoFile[] {
  return bundled.documents as ArazzoFile[];
}
